#!/usr/bin/env python3
"""A small OpenAI-compatible chat completions server for vault's end-to-end tests.

    python3 openai_server.py LOG_FILE [EXPECTED_KEY]

Listens on 127.0.0.1 on a free port and prints that port as the first line of
standard output. Exits when its standard input closes, or after 120 seconds at
the latest (OPENAI_SERVER_LIFETIME seconds, for a long measurement), so a test
that forgets it cannot leave it running.

`POST /v1/chat/completions` takes `{"model", "messages", "stream"}`; the model
name chooses what the server does (see BEHAVIOURS below). Every request is
appended to LOG_FILE as one JSON line:

    {"method": "POST", "path": "/v1/chat/completions",
     "headers": {"content-type": "application/json", "authorization": "present", ...},
     "body": {...the request's JSON...}}

Header names are lower-cased; the User-Agent is logged as received. The
Authorization value is never logged: it is "absent" when the header is missing,
"present" when it is there (and, when EXPECTED_KEY is given, is exactly
"Bearer EXPECTED_KEY"), and "mismatch" when it is there but holds another key.

A model named `big-N` streams a reply of N MiB (BIG_LINE repeated) in pieces of
BIG_PIECE bytes, then `finish_reason: stop` and `[DONE]`.

Python standard library only.
"""

import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LIFETIME = int(os.environ.get("OPENAI_SERVER_LIFETIME", "120"))

# The streamed reply of `ok`, `split`, `crlf`, `comments`, and its pieces (one per event).
REPLY_PIECES = [
    "안녕하세요! ",
    "부산 여행 🌊🏖️ ",
    "계획을 세워 볼게요.\n\n",
    "- 첫째 날: 해운대 👨‍👩‍👧\n",
    "- 둘째 날: 감천 문화 마을",
]
REPLY = "".join(REPLY_PIECES)
# `json` answers with one JSON object.
JSON_REPLY = "JSON 답장입니다 ✅\n둘째 줄"
# What `drop`, `stall` and `error-in-stream` send before they fail.
PARTIAL_PIECES = ["부분적인 ", "답장 🚧"]
# Words the server puts into its error messages (they must never reach the room).
SERVER_ERROR_TEXT = "upstream exploded: overloaded shard 42"
# `forever` streams this line, numbered, without end: "줄 000001 …\n", "줄 000002 …\n", …
FOREVER_LINE = "줄 %06d: the stream that never ends 🔁\n"
# `big-N` streams this 64-byte line until N MiB have been sent.
BIG_LINE = "vault streams long replies to the file, never whole in memory!!\n"
BIG_PIECE = 8192

log_path = sys.argv[1] if len(sys.argv) > 1 else os.devnull
expected_key = sys.argv[2] if len(sys.argv) > 2 else None
log_lock = threading.Lock()
counts_lock = threading.Lock()
counts = {}


def count(model):
    """How many requests for `model` came before this one."""
    with counts_lock:
        n = counts.get(model, 0)
        counts[model] = n + 1
        return n


def chunk(content=None, role=None, finish=None):
    delta = {}
    if role is not None:
        delta["role"] = role
    if content is not None:
        delta["content"] = content
    obj = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return json.dumps(obj, ensure_ascii=False)


def event(data, eol="\n"):
    return ("data: " + data + eol + eol).encode("utf-8")


def full_stream(eol="\n"):
    out = event(chunk(role="assistant", content=""), eol)
    for piece in REPLY_PIECES:
        out += event(chunk(content=piece), eol)
    out += event(chunk(finish="stop"), eol)
    out += event("[DONE]", eol)
    return out


def error_object(message, kind, code):
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-openai/1"

    def log_message(self, format, *args):  # quiet: the log file is the record
        pass

    # -- helpers --------------------------------------------------------------

    def log_request_line(self, body_bytes):
        headers = {}
        for name, value in self.headers.items():
            headers[name.lower()] = value
        auth = self.headers.get("Authorization")
        if auth is None:
            headers["authorization"] = "absent"
        elif expected_key is None or auth == "Bearer " + expected_key:
            headers["authorization"] = "present"
        else:
            headers["authorization"] = "mismatch"
        try:
            body = json.loads(body_bytes.decode("utf-8"))
        except Exception:
            body = body_bytes.decode("utf-8", "replace")
        line = json.dumps(
            {"method": self.command, "path": self.path, "headers": headers, "body": body},
            ensure_ascii=False,
        )
        with log_lock:
            with open(log_path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()

    def send_json(self, status, obj, extra_headers=()):
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in extra_headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def write_chunk(self, data):
        """One HTTP/1.1 chunk, sent at once."""
        if not data:
            return
        self.wfile.write(("%x\r\n" % len(data)).encode("ascii") + data + b"\r\n")
        self.wfile.flush()

    def end_stream(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def cut_connection(self):
        """Closes the socket in the middle of a chunked body, as a crashed proxy would."""
        self.wfile.flush()
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    # -- requests -------------------------------------------------------------

    def do_GET(self):
        self.send_json(404, error_object("no such route: " + self.path, "invalid_request_error", None))
        self.close_connection = True

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body_bytes = self.rfile.read(length) if length else b""
        self.log_request_line(body_bytes)
        self.close_connection = True
        if self.path != "/v1/chat/completions":
            self.send_json(404, error_object("no such route: " + self.path, "invalid_request_error", None))
            return
        try:
            request = json.loads(body_bytes.decode("utf-8"))
            model = request["model"]
            messages = request["messages"]
            if not isinstance(messages, list) or not isinstance(model, str):
                raise ValueError("bad types")
        except Exception:
            self.send_json(400, error_object("the request is not a chat completion request", "invalid_request_error", None))
            return
        behaviour = BEHAVIOURS.get(model)
        if behaviour is None and model.startswith("big-") and model[4:].isdigit():
            size = int(model[4:])
            behaviour = lambda handler, request: Handler.big(handler, request, size)
        if behaviour is None:
            self.send_json(400, error_object("unknown test model " + model, "invalid_request_error", None))
            return
        try:
            behaviour(self, request)
        except (BrokenPipeError, ConnectionResetError):
            pass

    # -- behaviours -----------------------------------------------------------

    def ok(self, request):
        self.start_stream()
        # One chunk per event, as OpenAI sends them.
        self.write_chunk(event(chunk(role="assistant", content="")))
        for piece in REPLY_PIECES:
            self.write_chunk(event(chunk(content=piece)))
        self.write_chunk(event(chunk(finish="stop")))
        self.write_chunk(event("[DONE]"))
        self.end_stream()

    def split(self, request):
        """The bytes of `ok` with CRLF line endings, in pieces of 1 to 3 bytes with pauses, so
        multi-byte characters and CR LF pairs are cut between network reads."""
        data = full_stream(eol="\r\n")
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.start_stream()
        sizes = [1, 2, 3, 1, 1, 2]
        i = 0
        k = 0
        while i < len(data):
            n = sizes[k % len(sizes)]
            self.write_chunk(data[i:i + n])
            i += n
            k += 1
            time.sleep(0.002)
        self.end_stream()

    def crlf(self, request):
        self.start_stream()
        self.write_chunk(full_stream(eol="\r\n"))
        self.end_stream()

    def comments(self, request):
        """Comment lines, `event:`, `id:` and `retry:` fields, and one chunk whose JSON is
        spread over two `data:` lines (the standard joins them with a line feed)."""
        self.start_stream()
        out = b": keep-alive\n\n"
        out += b"retry: 3000\n"
        out += b": another comment\n"
        out += b"event: message\nid: 1\n" + event(chunk(role="assistant", content=""))
        pieces = REPLY_PIECES
        out += b"id: 2\n" + event(chunk(content=pieces[0]))
        out += b": keep-alive\n\n"
        # The JSON of one chunk on two data lines.
        whole = chunk(content=pieces[1])
        cut = whole.index('"choices"')
        out += ("data: " + whole[:cut] + "\ndata: " + whole[cut:] + "\n\n").encode("utf-8")
        for piece in pieces[2:]:
            out += b"event: message\n" + event(chunk(content=piece))
            out += b": keep-alive\n\n"
        out += event(chunk(finish="stop")) + event("[DONE]")
        self.write_chunk(out)
        self.end_stream()

    def json_reply(self, request):
        self.send_json(200, {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "json",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": JSON_REPLY}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        })

    def rate_limit(self, request):
        if count("rate-limit") == 0:
            self.send_json(429, error_object("Rate limit reached for requests. " + SERVER_ERROR_TEXT, "requests", "rate_limit_exceeded"),
                           [("Retry-After", "1")])
        else:
            self.ok(request)

    def rate_limit_long(self, request):
        self.send_json(429, error_object("You exceeded your current quota. " + SERVER_ERROR_TEXT, "insufficient_quota", "insufficient_quota"),
                       [("Retry-After", "3600")])

    def flaky(self, request):
        if count("flaky") < 2:
            self.send_json(500, error_object("The server had an error. " + SERVER_ERROR_TEXT, "server_error", None))
        else:
            self.ok(request)

    def always_500(self, request):
        self.send_json(500, error_object("The server had an error. " + SERVER_ERROR_TEXT, "server_error", None))

    def unauthorized(self, request):
        # Echoes the whole key, as careless servers do: the client must not repeat it.
        auth = self.headers.get("Authorization", "")
        key = auth[len("Bearer "):] if auth.startswith("Bearer ") else auth
        self.send_json(401, error_object(
            "Incorrect API key provided: " + key + ". You can find your API key at https://platform.openai.com/account/api-keys.",
            "invalid_request_error", "invalid_api_key"))

    def missing(self, request):
        self.send_json(404, error_object(
            "The model `" + request["model"] + "` does not exist or you do not have access to it.",
            "invalid_request_error", "model_not_found"))

    def drop(self, request):
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        for piece in PARTIAL_PIECES:
            self.write_chunk(event(chunk(content=piece)))
        time.sleep(0.05)
        self.cut_connection()

    def no_done(self, request):
        """Two content events, then a clean end of the body without `[DONE]`."""
        self.start_stream()
        for piece in PARTIAL_PIECES:
            self.write_chunk(event(chunk(content=piece)))
        self.end_stream()

    def stall(self, request):
        self.start_stream()
        self.write_chunk(event(chunk(content=PARTIAL_PIECES[0])))
        time.sleep(30)
        self.cut_connection()

    def slow(self, request):
        """The reply of `ok`, with a pause of 1.5 s after its first piece (a slow model)."""
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        self.write_chunk(event(chunk(content=REPLY_PIECES[0])))
        time.sleep(1.5)
        for piece in REPLY_PIECES[1:]:
            self.write_chunk(event(chunk(content=piece)))
        self.write_chunk(event(chunk(finish="stop")))
        self.write_chunk(event("[DONE]"))
        self.end_stream()

    def slow_start(self, request):
        """The reply of `ok`, after 3 s without a byte (a model being loaded)."""
        time.sleep(3)
        self.ok(request)

    def malformed(self, request):
        self.start_stream()
        self.write_chunk(b"data: not json\n\n")
        self.write_chunk(event(chunk(content="never shown")))
        self.write_chunk(event("[DONE]"))
        self.end_stream()

    def empty(self, request):
        """A well-formed stream that ends with [DONE] and holds no text at all."""
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        self.write_chunk(event(chunk(finish="stop")))
        self.write_chunk(event("[DONE]"))
        self.end_stream()

    def trickle(self, request):
        """The reply of `ok`, one piece every 25 ms (a reply that takes a moment to stream)."""
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        for piece in REPLY_PIECES:
            time.sleep(0.025)
            self.write_chunk(event(chunk(content=piece)))
        self.write_chunk(event(chunk(finish="stop")))
        self.write_chunk(event("[DONE]"))
        self.end_stream()

    def error_in_stream(self, request):
        self.start_stream()
        self.write_chunk(event(chunk(content=PARTIAL_PIECES[0])))
        self.write_chunk(event(json.dumps(error_object(SERVER_ERROR_TEXT, "server_error", None))))
        self.end_stream()

    def no_answer(self, request):
        """Accepts the request (it is logged) and never answers: no status line, no byte."""
        time.sleep(LIFETIME)

    def forever(self, request):
        """Numbered lines without end, until the client goes away."""
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        n = 1
        while True:
            self.write_chunk(event(chunk(content=FOREVER_LINE % n)))
            n += 1

    def steady(self, request):
        """Words without end at a fast model's pace: a piece of a few characters every 10 ms
        (about 100 tokens a second), a line break every dozen pieces, until the client goes away."""
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        words = ["부산 ", "여행 ", "계획을 ", "세워 ", "볼게요 ", "the ", "stream ", "keeps ", "going ", "🌊 "]
        n = 0
        while True:
            piece = words[n % len(words)] + ("\n" if n % 12 == 11 else "")
            self.write_chunk(event(chunk(content=piece)))
            n += 1
            time.sleep(0.01)

    def big(self, request, mebibytes):
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        total = mebibytes * 1024 * 1024
        piece = (BIG_LINE * (BIG_PIECE // len(BIG_LINE)))
        sent = 0
        while sent < total:
            part = piece[:min(len(piece), total - sent)]
            self.write_chunk(event(chunk(content=part)))
            sent += len(part)
        self.write_chunk(event(chunk(finish="stop")))
        self.write_chunk(event("[DONE]"))
        self.end_stream()

    def cut_short(self, request, reason):
        """The reply of `ok`, ended by `finish_reason: reason` (the server's limit, or its filter)."""
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        for piece in REPLY_PIECES:
            self.write_chunk(event(chunk(content=piece)))
        self.write_chunk(event(chunk(finish=reason)))
        self.write_chunk(event("[DONE]"))
        self.end_stream()

    def length(self, request):
        self.cut_short(request, "length")

    def content_filter(self, request):
        self.cut_short(request, "content_filter")

    def json_length(self, request):
        self.send_json(200, {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "json-length",
            "choices": [{
                "index": 0, "message": {"role": "assistant", "content": JSON_REPLY}, "finish_reason": "length",
            }],
        })

    def stop_no_done(self, request):
        """The whole reply and `finish_reason: stop`, then a clean end of the body without `[DONE]`."""
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        for piece in REPLY_PIECES:
            self.write_chunk(event(chunk(content=piece)))
        self.write_chunk(event(chunk(finish="stop")))
        self.end_stream()

    def stop_then_cut(self, request):
        """The whole reply and `finish_reason: stop`, then the connection cut (no end of body)."""
        self.start_stream()
        self.write_chunk(event(chunk(role="assistant", content="")))
        for piece in REPLY_PIECES:
            self.write_chunk(event(chunk(content=piece)))
        self.write_chunk(event(chunk(finish="stop")))
        time.sleep(0.05)
        self.cut_connection()

    def rate_limit_wait(self, request):
        """Always 429 with `Retry-After: 30`."""
        self.send_json(429, error_object("Rate limit reached. " + SERVER_ERROR_TEXT, "requests", "rate_limit_exceeded"),
                       [("Retry-After", "30")])

    def error_in_stream_key(self, request):
        """A piece, then an error event that quotes the key the request came with, as careless
        proxies do."""
        auth = self.headers.get("Authorization", "")
        key = auth[len("Bearer "):] if auth.startswith("Bearer ") else auth
        self.start_stream()
        self.write_chunk(event(chunk(content=PARTIAL_PIECES[0])))
        failure = error_object("upstream refused key " + key + " mid-stream", "server_error", None)
        self.write_chunk(event(json.dumps(failure)))
        self.end_stream()


BEHAVIOURS = {
    "ok": Handler.ok,
    "split": Handler.split,
    "crlf": Handler.crlf,
    "comments": Handler.comments,
    "json": Handler.json_reply,
    "rate-limit": Handler.rate_limit,
    "rate-limit-long": Handler.rate_limit_long,
    "flaky": Handler.flaky,
    "always-500": Handler.always_500,
    "unauthorized": Handler.unauthorized,
    "missing": Handler.missing,
    "drop": Handler.drop,
    "no-done": Handler.no_done,
    "stall": Handler.stall,
    "slow": Handler.slow,
    "slow-start": Handler.slow_start,
    "malformed": Handler.malformed,
    "error-in-stream": Handler.error_in_stream,
    "no-answer": Handler.no_answer,
    "forever": Handler.forever,
    "steady": Handler.steady,
    "length": Handler.length,
    "content-filter": Handler.content_filter,
    "json-length": Handler.json_length,
    "stop-no-done": Handler.stop_no_done,
    "stop-then-cut": Handler.stop_then_cut,
    "rate-limit-wait": Handler.rate_limit_wait,
    "error-in-stream-key": Handler.error_in_stream_key,
    "empty": Handler.empty,
    "trickle": Handler.trickle,
}


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
        time.sleep(LIFETIME)
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Thread(target=deadline, daemon=True).start()
    server.serve_forever(poll_interval=0.1)


if __name__ == "__main__":
    main()
