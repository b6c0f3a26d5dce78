#!/usr/bin/env python3
"""A smart-HTTP git server on loopback, for vault's sync tests.

    python3 git_http_server.py ROOT [--token T] [--log FILE] [--port N] [--lifetime SECONDS]

Serves the bare repositories under ROOT (`ROOT/notes.git` is
`http://127.0.0.1:PORT/notes.git`) by running `git http-backend` as a CGI
program for every request, as Apache or nginx would. Listens on 127.0.0.1 on
PORT (0, the default, picks a free one) and prints the port as the first line
of standard output. Exits when its standard input closes, on SIGTERM, or after
--lifetime seconds (300 by default), so a test that forgets it cannot leave it
running.

Without --token anyone may fetch and push (`http.receivepack` is turned on for
every repository). With --token T every request needs HTTP Basic auth whose
password is T (any user name); anything else gets 401 with
`WWW-Authenticate: Basic realm="vault-test"`, which is what makes git ask its
credential helpers. The user name becomes REMOTE_USER, which lets
http-backend accept pushes.

Request bodies are streamed to the CGI's standard input: a gzipped body
(`Content-Encoding: gzip`, git's fetch negotiation) is passed on untouched,
since http-backend inflates it itself; a chunked body (`Transfer-Encoding:
chunked`, git's pushes larger than http.postBuffer) is de-chunked and
http-backend reads it to end of file (no CONTENT_LENGTH, as RFC 3875 allows).

Every request is logged as one line to stderr, or appended to --log FILE:

    POST /notes.git/git-receive-pack 200 user=vault encoding=gzip chunked=yes bytes=1234

`user` is the Basic-auth user name (`-` when none was sent), `encoding` the
Content-Encoding (`-` when none), `chunked` whether the body came chunked,
`bytes` the size of the body as received. The status is what the client got
(401 when the token was missing or wrong). http-backend's own error output is
logged as lines starting with `backend: `.

Python standard library only.
"""

import argparse
import base64
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, unquote

REALM = "vault-test"

options = None
log_lock = threading.Lock()
backend = None


def log(line):
    with log_lock:
        if options.log:
            with open(options.log, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        else:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()


def find_backend():
    """The `git http-backend` program: git's exec path, then PATH."""
    try:
        exec_path = subprocess.run(
            ["git", "--exec-path"], check=True, capture_output=True, text=True
        ).stdout.strip()
        candidate = os.path.join(exec_path, "git-http-backend")
        if os.access(candidate, os.X_OK):
            return [candidate]
    except (OSError, subprocess.CalledProcessError):
        pass
    if shutil.which("git-http-backend"):
        return ["git-http-backend"]
    return ["git", "http-backend"]


class BodyReader:
    """The request body as it arrives: fixed length, or de-chunked."""

    def __init__(self, rfile, length, chunked):
        self.rfile = rfile
        self.remaining = length
        self.chunked = chunked
        self.chunk_left = 0
        self.done = not chunked and length == 0
        self.received = 0

    def read(self, size=65536):
        """Up to `size` bytes, or b"" at the end of the body."""
        if self.done:
            return b""
        if self.chunked:
            if self.chunk_left == 0:
                line = self.rfile.readline(1024)
                if not line:
                    raise IOError("the connection closed inside a chunked body")
                size_text = line.split(b";", 1)[0].strip()
                self.chunk_left = int(size_text, 16)
                if self.chunk_left == 0:
                    # Trailers, up to the blank line.
                    while True:
                        trailer = self.rfile.readline(1024)
                        if trailer in (b"\r\n", b"\n", b""):
                            break
                    self.done = True
                    return b""
            data = self.rfile.read(min(size, self.chunk_left))
            if not data:
                raise IOError("the connection closed inside a chunk")
            self.chunk_left -= len(data)
            if self.chunk_left == 0:
                self.rfile.readline(16)  # the CRLF after the chunk
        else:
            data = self.rfile.read(min(size, self.remaining))
            if not data:
                raise IOError("the connection closed inside the body")
            self.remaining -= len(data)
            if self.remaining == 0:
                self.done = True
        self.received += len(data)
        return data

    def drain(self):
        while self.read():
            pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "vault-test-git-http/1"

    def log_message(self, format, *args):  # every request is logged once, by `record`
        pass

    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def do_HEAD(self):
        self.serve()

    def record(self, status, user, body):
        encoding = self.headers.get("Content-Encoding") or "-"
        chunked = "yes" if body is not None and body.chunked else "no"
        received = body.received if body is not None else 0
        log(
            "%s %s %d user=%s encoding=%s chunked=%s bytes=%d"
            % (self.command, self.path, status, user or "-", encoding, chunked, received)
        )

    def body_reader(self):
        transfer = (self.headers.get("Transfer-Encoding") or "").lower()
        chunked = "chunked" in transfer
        length = 0 if chunked else int(self.headers.get("Content-Length") or 0)
        return BodyReader(self.rfile, length, chunked)

    def authorised_user(self):
        """(ok, user name): whether the request may go on, and who sent it."""
        header = self.headers.get("Authorization") or ""
        user = None
        password = None
        if header[:6].lower() == "basic ":
            try:
                decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
                user, _, password = decoded.partition(":")
            except (ValueError, UnicodeDecodeError):
                user = None
        if options.token is None:
            return True, user
        return password == options.token, user

    def serve(self):
        body = self.body_reader()
        ok, user = self.authorised_user()
        if not ok:
            try:
                body.drain()
            except (IOError, ValueError):
                self.close_connection = True
            message = b"authentication required\n"
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="%s"' % REALM)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(message)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(message)
            self.record(401, user, body)
            return
        status = self.run_backend(body, user)
        self.record(status, user, body)

    def cgi_environment(self, body, user):
        parts = urlsplit(self.path)
        env = dict(os.environ)
        env.update(
            {
                "GATEWAY_INTERFACE": "CGI/1.1",
                "SERVER_PROTOCOL": self.request_version,
                "SERVER_SOFTWARE": self.server_version,
                "SERVER_NAME": "127.0.0.1",
                "SERVER_PORT": str(self.server.server_address[1]),
                "REMOTE_ADDR": self.client_address[0],
                "REQUEST_METHOD": self.command,
                "SCRIPT_NAME": "",
                "PATH_INFO": unquote(parts.path),
                "QUERY_STRING": parts.query,
                "GIT_PROJECT_ROOT": options.root,
                "GIT_HTTP_EXPORT_ALL": "1",
            }
        )
        for name in ("CONTENT_TYPE", "CONTENT_LENGTH", "REMOTE_USER", "AUTH_TYPE"):
            env.pop(name, None)
        if self.headers.get("Content-Type"):
            env["CONTENT_TYPE"] = self.headers["Content-Type"]
        if not body.chunked and self.command == "POST":
            env["CONTENT_LENGTH"] = str(body.remaining)
        if user is not None:
            env["REMOTE_USER"] = user
            env["AUTH_TYPE"] = "Basic"
        if options.token is None:
            # Pushes are refused to anonymous users unless the repository says otherwise.
            count = int(env.get("GIT_CONFIG_COUNT") or 0)
            env["GIT_CONFIG_KEY_%d" % count] = "http.receivepack"
            env["GIT_CONFIG_VALUE_%d" % count] = "true"
            env["GIT_CONFIG_COUNT"] = str(count + 1)
        # The request headers as HTTP_* (http-backend reads HTTP_CONTENT_ENCODING
        # and HTTP_GIT_PROTOCOL); never the credentials.
        for name, value in self.headers.items():
            key = "HTTP_" + name.upper().replace("-", "_")
            if key in ("HTTP_AUTHORIZATION", "HTTP_CONTENT_LENGTH", "HTTP_CONTENT_TYPE", "HTTP_TRANSFER_ENCODING"):
                continue
            env[key] = value
        return env

    def run_backend(self, body, user):
        """Runs http-backend for this request and relays its answer; returns the status sent."""
        child = subprocess.Popen(
            backend,
            env=self.cgi_environment(body, user),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        feed_error = []

        def feed():
            try:
                while True:
                    data = body.read()
                    if not data:
                        break
                    child.stdin.write(data)
            except (IOError, ValueError, BrokenPipeError) as error:
                feed_error.append(error)
            finally:
                try:
                    child.stdin.close()
                except OSError:
                    pass

        def errors():
            for line in child.stderr:
                log("backend: " + line.decode("utf-8", "replace").rstrip("\n"))

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        error_reader = threading.Thread(target=errors, daemon=True)
        error_reader.start()

        # The CGI header block: `Name: value` lines up to a blank line.
        status = 200
        headers = []
        while True:
            line = child.stdout.readline()
            if not line:
                break
            line = line.rstrip(b"\r\n")
            if not line:
                break
            name, _, value = line.decode("latin-1").partition(":")
            value = value.strip()
            if name.lower() == "status":
                status = int(value.split()[0])
            else:
                headers.append((name, value))
        has_length = any(name.lower() == "content-length" for name, _ in headers)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        chunked_reply = not has_length and self.command != "HEAD"
        if chunked_reply:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while True:
                data = child.stdout.read1(65536)
                if not data:
                    break
                if self.command == "HEAD":
                    continue
                if chunked_reply:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                else:
                    self.wfile.write(data)
            if chunked_reply:
                self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            child.kill()
        feeder.join()
        error_reader.join()
        child.wait()
        if feed_error or not body.done:
            # The body was not read to its end: the connection cannot carry another request.
            self.close_connection = True
        return status


def main():
    # A process started by the Swift test runner inherits a signal mask that blocks SIGTERM
    # (and nearly everything else); clear it, for our handlers and for the programs we start.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    global options, backend
    parser = argparse.ArgumentParser(description="A smart-HTTP git server on 127.0.0.1.")
    parser.add_argument("root", help="the folder holding the bare repositories")
    parser.add_argument("--token", help="the password every request must carry (HTTP Basic auth)")
    parser.add_argument("--log", help="append one line per request to this file (default: stderr)")
    parser.add_argument("--port", type=int, default=0, help="the port (0: a free one)")
    parser.add_argument("--lifetime", type=float, default=300, help="exit after this many seconds")
    options = parser.parse_args()
    options.root = os.path.abspath(options.root)
    backend = find_backend()

    server = ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
    server.daemon_threads = True
    sys.stdout.write("%d\n" % server.server_address[1])
    sys.stdout.flush()

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except Exception:
            pass
        os._exit(0)

    def deadline():
        time.sleep(options.lifetime)
        os._exit(0)

    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=deadline, daemon=True).start()
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
