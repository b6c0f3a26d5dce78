#!/usr/bin/env python3
"""An OpenSSH server on loopback, for vault's sync tests (git over ssh).

    python3 sshd_fixture.py DIR AUTHORIZED_KEYS [--port N] [--lifetime SECONDS]

Runs Debian's `/usr/sbin/sshd -D -e` as the current user (root in CI) on
127.0.0.1, with everything of its own in DIR:

    DIR/sshd_config            written here on every start
    DIR/ssh_host_ed25519_key   a fresh host key on every start (and its .pub)
    DIR/sshd.pid
    DIR/sshd.log               sshd's log (-e: its stderr)

Only public-key logins are accepted, against the keys in AUTHORIZED_KEYS
(an absolute path; `StrictModes no`, so a file in a temporary folder is fine).
The port is PORT, or a free one when PORT is 0 (the default); it is printed as
the first line of standard output once sshd answers on it with its SSH banner.
Giving the port of an earlier run restarts the server there with a new host
key, which is how a test makes a client's known_hosts entry stale.

Exits, stopping sshd, when its standard input closes, on SIGTERM or SIGINT, or
after --lifetime seconds (300 by default); sshd also gets SIGTERM if this
process dies any other way (PR_SET_PDEATHSIG). Sessions already open when
sshd stops keep running until their client disconnects.

Python standard library only.
"""

import argparse
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time

SSHD = "/usr/sbin/sshd"
# sshd's privilege separation folder (Debian's sshd refuses to start without it).
PRIVSEP_DIR = "/run/sshd"
START_TIMEOUT = 10
PR_SET_PDEATHSIG = 1
STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}

CONFIG = """\
# Written by Tests/Fixtures/sshd_fixture.py for one test; nothing else reads it.
ListenAddress 127.0.0.1
Port {port}
HostKey {dir}/ssh_host_ed25519_key
PidFile {dir}/sshd.pid
AuthorizedKeysFile {authorized_keys}
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
StrictModes no
# git sends GIT_PROTOCOL=version=2 over ssh, as it does to real servers.
AcceptEnv GIT_PROTOCOL
PrintMotd no
PrintLastLog no
UseDNS no
X11Forwarding no
AllowTcpForwarding no
AllowAgentForwarding no
MaxStartups 100:30:200
LogLevel VERBOSE
"""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """In the child before exec: no blocked signals, and SIGTERM when this fixture goes away."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except OSError:
        pass


def new_host_key(directory):
    key = os.path.join(directory, "ssh_host_ed25519_key")
    for path in (key, key + ".pub"):
        if os.path.exists(path):
            os.remove(path)
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "vault-test-host", "-f", key],
        check=True,
        stdin=subprocess.DEVNULL,
    )


def banner_on(port):
    """Whether sshd answers on `port` with its SSH-2.0 banner."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.settimeout(2)
            return s.recv(64).startswith(b"SSH-2.0-")
    except OSError:
        return False


def start(directory, authorized_keys, port):
    """Starts sshd on `port`; returns (process, None), or (None, why) when it did not come up."""
    with open(os.path.join(directory, "sshd_config"), "w", encoding="utf-8") as f:
        f.write(CONFIG.format(port=port, dir=directory, authorized_keys=authorized_keys))
    log_path = os.path.join(directory, "sshd.log")
    log = open(log_path, "ab")
    process = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", os.path.join(directory, "sshd_config")],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.PIPE,
        preexec_fn=die_with_parent,
    )
    # Wait for the real event: sshd says it listens (or exits), then answers with its banner.
    listening = threading.Event()

    def relay():
        for line in process.stderr:
            log.write(line)
            log.flush()
            if b"Server listening on" in line:
                listening.set()
        listening.set()  # sshd exited: stop waiting

    threading.Thread(target=relay, daemon=True).start()
    if not listening.wait(START_TIMEOUT) or process.poll() is not None:
        process.kill()
        process.wait()
        return None, "sshd did not start listening; see " + log_path
    if not banner_on(port):
        process.kill()
        process.wait()
        return None, "sshd listens but did not send its banner; see " + log_path
    return process, None


def main():
    # A process started by the Swift test runner inherits a signal mask that blocks nearly
    # everything. Here only SIGTERM and SIGINT stay blocked, in every thread, so that one
    # thread can take them with sigwait (sshd starts with an empty mask: see die_with_parent).
    signal.pthread_sigmask(signal.SIG_SETMASK, STOP_SIGNALS)
    parser = argparse.ArgumentParser(description="sshd on 127.0.0.1 for git-over-ssh tests.")
    parser.add_argument("dir", help="the folder for the config, host key, pid file and log")
    parser.add_argument("authorized_keys", help="the authorized_keys file (absolute path)")
    parser.add_argument("--port", type=int, default=0, help="the port (0: a free one)")
    parser.add_argument("--lifetime", type=float, default=300, help="exit after this many seconds")
    options = parser.parse_args()
    directory = os.path.abspath(options.dir)
    authorized_keys = os.path.abspath(options.authorized_keys)
    os.makedirs(directory, exist_ok=True)
    if not os.path.isdir(PRIVSEP_DIR):
        os.makedirs(PRIVSEP_DIR, mode=0o755, exist_ok=True)
    if not os.access(SSHD, os.X_OK):
        sys.stderr.write("sshd_fixture: %s is missing (apt-get install openssh-server)\n" % SSHD)
        sys.exit(2)

    new_host_key(directory)
    # A free port can be taken between asking for it and sshd binding it: then try another.
    attempts = 1 if options.port else 5
    process = None
    why = ""
    for _ in range(attempts):
        port = options.port or free_port()
        process, why = start(directory, authorized_keys, port)
        if process is not None:
            break
    if process is None:
        sys.stderr.write("sshd_fixture: %s\n" % why)
        sys.exit(1)

    # Everything that ends the fixture only sets this event; the main thread does the stopping.
    finished = threading.Event()

    def watch_signals():
        signal.sigwait(STOP_SIGNALS)
        finished.set()

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except Exception:
            pass
        finished.set()

    def watch_sshd():
        process.wait()
        finished.set()

    sys.stdout.write("%d\n" % port)
    sys.stdout.flush()
    threading.Thread(target=watch_signals, daemon=True).start()
    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=watch_sshd, daemon=True).start()
    finished.wait(options.lifetime)
    if process.poll() is not None:
        sys.stderr.write("sshd_fixture: sshd exited with status %d; see %s/sshd.log\n" % (process.returncode, directory))
        os._exit(1)
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
    os._exit(0)


if __name__ == "__main__":
    main()
