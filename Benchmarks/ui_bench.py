#!/usr/bin/env python3
"""`vault ui` on a pseudo-terminal: how soon the screens come (#40's figures).

    Benchmarks/ui_bench.py VAULT_BINARY --home DIR [--room DIR ROOM] [--stream DIR ROOM]
                           [--search DIR QUERY] [--runs N]

Each measure starts the app on a new pseudo-terminal of 24 rows and 80 columns (os.forkpty:
the app's controlling terminal, as a shell gives it) and reads what it writes. A frame is
complete when the renderer ends its synchronized update (`ESC [ ? 2026 l`), so the times are
from the moment the bytes were sent to the end of the frame that shows them:

  first screen    from the start of `vault ui` to the end of its first frame (--home, and --room:
                  `vault ui ROOM`, a room read from its end)
  open a room     Enter on the list's room → the end of the frame with the room (--room)
  key → repaint   a letter typed in a room's compose box → the end of the frame that has it
                  (--room); the same while a reply streams (--stream: a room whose model is the
                  loopback server's `steady`, words at a fast model's pace, or its `forever`,
                  lines as fast as loopback carries them)
  search          `/`, then QUERY typed a key every 25 ms (as a quick typist, inside the debounce),
                  the last key → the end of the first frame with the hit count (--search)
  peak memory     VmHWM of the app's process after the first screen and after the search

Prints medians (and the 90th percentile of the key times) in milliseconds.
"""
import argparse, os, re, select, signal, statistics, time

parser = argparse.ArgumentParser()
parser.add_argument("vault")
parser.add_argument("--home", metavar="DIR")
parser.add_argument("--room", nargs=2, metavar=("DIR", "ROOM"))
parser.add_argument("--stream", nargs=2, metavar=("DIR", "ROOM"))
parser.add_argument("--search", nargs=2, metavar=("DIR", "QUERY"))
parser.add_argument("--runs", type=int, default=9)
parser.add_argument("--keys", type=int, default=30)
args = parser.parse_args()

FRAME_END = b"\x1b[?2026l"


class App:
    def __init__(self, directory, arguments=()):
        self.start = time.perf_counter()
        pid, fd = os.forkpty()
        if pid == 0:
            os.chdir(directory)
            os.environ["TERM"] = "xterm-256color"
            os.environ["LINES"], os.environ["COLUMNS"] = "24", "80"
            os.execv(args.vault, [args.vault, "ui", *arguments])
        self.pid, self.fd = pid, fd
        self.buffer = b""

    def read_until(self, condition, timeout=30):
        """Reads until condition(bytes read since the call) holds; the time it held."""
        seen = b""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise SystemExit(f"timed out; last bytes: {seen[-300:]!r}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                raise SystemExit(f"the app ended; last bytes: {seen[-300:]!r}")
            now = time.perf_counter()
            seen += chunk
            if condition(seen):
                return now

    def frame_with(self, needle):
        """Reads until a frame that contains `needle` has ended."""
        def done(seen):
            at = seen.find(needle)
            return at >= 0 and seen.find(FRAME_END, at) >= 0
        return self.read_until(done)

    def first_frame(self):
        return self.read_until(lambda seen: FRAME_END in seen) - self.start

    def send(self, data):
        os.write(self.fd, data)
        return time.perf_counter()

    def app_process(self):
        """The app is the guard's child (`vault ui` runs as two processes)."""
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as f:
                children = f.read().split()
            return int(children[0]) if children else self.pid
        except OSError:
            return self.pid

    def peak_memory_mb(self):
        with open(f"/proc/{self.app_process()}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def quit(self):
        self.send(b"\x1b")
        time.sleep(0.1)
        self.send(b"\x1b")
        time.sleep(0.1)
        self.send(b"q")
        # What it writes meanwhile is read (a terminal nobody reads would block its writes).
        deadline = time.time() + 10
        while time.time() < deadline:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
            if select.select([self.fd], [], [], 0.01)[0]:
                try:
                    os.read(self.fd, 65536)
                except OSError:
                    pass
        else:
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def ms(values):
    return f"{statistics.median(values) * 1000:7.1f} ms"


def p90(values):
    return sorted(values)[int(len(values) * 0.9) - 1] * 1000


def first_screens(directory, arguments, label):
    times, memory = [], []
    for _ in range(args.runs):
        app = App(directory, arguments)
        times.append(app.first_frame())
        time.sleep(0.2)
        memory.append(app.peak_memory_mb())
        app.quit()
    print(f"{label:<48} first screen {ms(times)}   peak memory {statistics.median(memory):6.1f} MB")


def open_from_the_list(directory, label):
    """Enter on the list's first room → the end of the frame with its compose box."""
    times = []
    for _ in range(args.runs):
        app = App(directory)
        app.first_frame()
        time.sleep(0.2)
        sent = app.send(b"\r")
        times.append(app.frame_with(b"message \xe2\x94\x80") - sent)
        app.quit()
    print(f"{label:<48} Enter → room shown {ms(times)}")


def keys(directory, room, label, streaming=False):
    app = App(directory, [room])
    app.first_frame()
    if streaming:
        app.send("끝없이 말해 줘\r".encode())
        app.frame_with(b"stream")
        time.sleep(0.5)
    times = []
    for i in range(args.keys):
        letter = b"Q" if i % 2 == 0 else b"Z"
        sent = app.send(letter)
        times.append(app.frame_with(letter) - sent)
        time.sleep(0.03)
    print(f"{label:<48} key → repaint {ms(times)}   90th percentile {p90(times):6.1f} ms   ({len(times)} keys)")
    app.quit()


def search(directory, query):
    times, memory = [], []
    count = re.compile(rb"\d+ files?")
    for _ in range(args.runs):
        app = App(directory)
        app.first_frame()
        app.send(b"/")
        app.frame_with(b"search")
        last = 0.0
        for ch in query:
            last = app.send(ch.encode())
            time.sleep(0.025)
        end = app.read_until(lambda seen: (m := count.search(seen)) is not None and seen.find(FRAME_END, m.end()) >= 0)
        times.append(end - last)
        memory.append(app.peak_memory_mb())
        app.quit()
    print(f"{'search ' + repr(query) + ' (last key → hits)':<48} {ms(times)}   peak memory {statistics.median(memory):6.1f} MB")


if args.home:
    first_screens(args.home, [], f"home: {os.path.basename(args.home)}")
if args.room:
    first_screens(args.room[0], [args.room[1]], f"vault ui ROOM: {os.path.basename(args.room[0])}")
    open_from_the_list(args.room[0], f"opened from the list: {os.path.basename(args.room[0])}")
    keys(args.room[0], args.room[1], "typing in the room")
if args.stream:
    keys(args.stream[0], args.stream[1], f"typing while a reply streams ({args.stream[1]})", streaming=True)
if args.search:
    search(args.search[0], args.search[1])
