#!/usr/bin/env python3
"""The time until a listing's first screen is on a terminal.

    Benchmarks/first-screen.py VAULT_BINARY VAULT_DIR [--runs N] [--rows R]

Starts `vault rooms` and `vault diary list` (and, for comparison, `rg -m1 ^title:` over the
same folders) on a new pseudo-terminal of R rows and 120 columns, through the default pager
(`less -FRX`), and measures the time from the start until R - 1 lines have reached the
terminal. The command and its pager are then ended. Prints each command's median.
"""
import argparse, fcntl, os, signal, statistics, struct, subprocess, termios, time

parser = argparse.ArgumentParser()
parser.add_argument("vault")
parser.add_argument("data")
parser.add_argument("--runs", type=int, default=15)
parser.add_argument("--rows", type=int, default=40)
args = parser.parse_args()


def first_screen(argv, rows):
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 120, 0, 0))
    env = dict(os.environ)
    env.pop("VAULT_PAGER", None)
    env.pop("PAGER", None)
    env.pop("LESS", None)
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, start_new_session=True, env=env)
    os.close(slave)
    seen = 0
    elapsed = None
    while elapsed is None:
        try:
            piece = os.read(master, 65536)
        except OSError:
            break
        if not piece:
            break
        seen += piece.count(b"\n")
        if seen >= rows - 1:
            elapsed = time.perf_counter() - start
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.wait()
    os.close(master)
    return elapsed


commands = [
    ("vault rooms", [args.vault, "rooms", "--vault", args.data]),
    ("rg: every room's title", ["rg", "--no-ignore", "-m1", "^title:", args.data + "/rooms"]),
    ("vault diary list", [args.vault, "diary", "list", "--vault", args.data]),
    ("rg: every entry's title", ["rg", "--no-ignore", "-m1", "^title:", args.data + "/diary"]),
]
for _, argv in commands:  # warm-up: caches, the watcher
    first_screen(argv, args.rows)
times = {name: [] for name, _ in commands}
for _ in range(args.runs):
    for name, argv in commands:  # taking turns
        t = first_screen(argv, args.rows)
        if t is not None:
            times[name].append(t * 1000)
for name, _ in commands:
    values = times[name]
    print(f"{name}: first screen ({args.rows - 1} lines) median {statistics.median(values):.1f} ms "
          f"(min {min(values):.1f}, max {max(values):.1f}, {len(values)} runs)")
