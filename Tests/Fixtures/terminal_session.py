"""A person at a terminal: an interactive bash with job control on a new pseudo-terminal, and
keys typed into it step by step.

    python3 terminal_session.py STEPS.json TRANSCRIPT [ROWS COLUMNS]

STEPS.json is a list of steps, run in order:

    {"type": "text"}                  keys to type, as they are (escape, Ctrl-C: "\\u001b", "\\u0003")
    {"expect": "regex"}               wait (20 s, or "timeout") until the screen's text so far,
                                      escape sequences left out, matches after the last match
    {"pause": 0.3}                    wait that many seconds
    {"state": "NAME", "of": "vim"}    wait until a process whose command line starts with
                                      "vim" is in state NAME ("R", "S", "T", ...) and print
                                      its state, process group and the terminal's foreground
                                      group to the transcript
    {"signal": "INT"}                 send a signal to the terminal's foreground process group,
                                      as the terminal does for Ctrl-C when the program lets it
    {"run": "shell command"}          run a command beside the terminal (another window) and
                                      print its output and status to the transcript

The shell is `bash --norc --noprofile -i` with the prompt `$ `, so each command typed runs as a
job of its own in the terminal's foreground, as in a person's terminal. Everything the terminal
showed goes to TRANSCRIPT. Exits 0 when every step was done, 3 when an expectation timed out
(saying which, and the screen's last lines), 4 when the shell did not end.
"""
import json
import os
import re
import select
import signal
import struct
import sys
import termios
import time
import fcntl

ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-B]|\x1b[=>78MDEHc]")


def main():
    steps = json.load(open(sys.argv[1]))
    transcript_path = sys.argv[2]
    rows, columns = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (30, 100)
    signal.alarm(240)
    pid, master = os.forkpty()
    if pid == 0:
        os.environ["PS1"] = "$ "
        os.environ["TERM"] = os.environ.get("TERM") or "xterm"
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    raw = bytearray()
    seen = 0  # where the next expectation starts looking, in the text without escapes

    def pump(seconds):
        end = time.time() + seconds
        while True:
            left = end - time.time()
            if left <= 0:
                return True
            ready, _, _ = select.select([master], [], [], min(left, 0.05))
            if ready:
                try:
                    piece = os.read(master, 65536)
                except OSError:
                    return False
                if not piece:
                    return False
                raw.extend(piece)
                # A terminal answers the cursor-position question vim and nano may ask.
                if b"\x1b[6n" in piece:
                    os.write(master, b"\x1b[1;1R")

    def text():
        return ESCAPES.sub(b"", bytes(raw)).decode("utf-8", "replace")

    def end_session():
        """SIGKILL to every process of the terminal's session (a stopped editor too), so none
        is left holding a descriptor of whoever started this."""
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[3]) == pid:
                try:
                    os.kill(int(entry), signal.SIGKILL)
                except OSError:
                    pass

    def fail(code, why):
        open(transcript_path, "wb").write(bytes(raw))
        tail = "\n".join(text().replace("\r", "").splitlines()[-15:])
        sys.stderr.write(f"{why}\n--- the screen's last lines ---\n{tail}\n")
        end_session()
        sys.exit(code)

    def foreground_group():
        try:
            return os.tcgetpgrp(master)
        except OSError:
            return -1

    pump(0.3)
    for step in steps:
        if "type" in step:
            for chunk in re.split(r"(\r)", step["type"]):
                if chunk:
                    os.write(master, chunk.encode("utf-8"))
                    pump(0.05)
        elif "expect" in step:
            pattern = re.compile(step["expect"])
            deadline = time.time() + step.get("timeout", 20)
            while True:
                found = pattern.search(text(), seen)
                if found:
                    seen = found.end()
                    break
                if time.time() > deadline or not pump(0.1):
                    fail(3, f"timed out waiting for {step['expect']!r}")
        elif "pause" in step:
            pump(step["pause"])
        elif "signal" in step:
            os.killpg(foreground_group(), getattr(signal, "SIG" + step["signal"]))
            pump(0.2)
        elif "run" in step:
            import subprocess
            done = subprocess.run(["sh", "-c", step["run"]], capture_output=True, timeout=60)
            raw.extend(b"\n[beside: " + step["run"].encode() + b"]\n" + done.stdout + done.stderr
                       + f"[status {done.returncode}]\n".encode())
        elif "state" in step:
            deadline = time.time() + step.get("timeout", 20)
            while True:
                found = None
                for entry in os.listdir("/proc"):
                    if not entry.isdigit():
                        continue
                    try:
                        command = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode()
                        stat = open(f"/proc/{entry}/stat").read()
                    except OSError:
                        continue
                    if command.startswith(step["of"]):
                        fields = stat[stat.rindex(")") + 2:].split()
                        found = (fields[0], int(fields[2]))
                        break
                if found and found[0] == step["state"]:
                    raw.extend(f"\n[{step['of']}: state {found[0]}, group {found[1]}, "
                               f"terminal's foreground group {foreground_group()}]\n".encode())
                    break
                if time.time() > deadline:
                    fail(3, f"{step['of']} never in state {step['state']} (last seen: {found}, "
                            f"terminal's foreground group {foreground_group()})")
                pump(0.1)
    os.write(master, b"exit\r")
    deadline = time.time() + 10
    while pump(0.1) and time.time() < deadline:
        pass
    open(transcript_path, "wb").write(bytes(raw))
    ended, status = 0, 0
    while not ended and time.time() < deadline + 5:
        ended, status = os.waitpid(pid, os.WNOHANG)
        time.sleep(0.02)
    end_session()
    sys.exit(0 if ended and os.WIFEXITED(status) else 4)


main()
