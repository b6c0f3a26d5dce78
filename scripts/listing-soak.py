#!/usr/bin/env python3
"""Changes a vault at random and checks, after each change, that `vault rooms` and `vault diary
list` print what a listing with no cache at all prints (every file read).

    scripts/listing-soak.py VAULT_BINARY [--seconds N] [--seed S] [--files N]

The listings run as a person runs them: with the search watcher (started by the first one) and
their cache outside the vault, so they take whatever path the cache and the watcher allow (the
cache's lines walked in place, a full listing, a damaged cache); and without the watcher
(`VAULT_NO_WATCH`), with a cache of their own, which they bring up to date by the files' stamps.
The changes: an edit in place of the same size, an append, a save by rename, a room or entry
added or removed (right in rooms/ or in a year's folder, as format 2 files them), a rename
(also from one folder to another), a conflict copy, a name with a backslash or a tab, an entry in a new
or deeper folder, a folder removed, a damaged cache line or saved folder listing, and pauses around the
2-second racy window. Seeded: a failure prints the seed and the step. The test suite runs
the fixed cases of this (`ListingCacheTests`); this script runs many more, for as long as asked.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("vault")
parser.add_argument("--seconds", type=float, default=120)
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--files", type=int, default=60)
args = parser.parse_args()
args.vault = os.path.abspath(args.vault)
rng = random.Random(args.seed)
work = tempfile.mkdtemp(prefix="listing-soak-")
root = os.path.join(work, "vault")
cache = os.path.join(work, "cache")
unwatched_cache = os.path.join(work, "cache-unwatched")
base_env = {k: v for k, v in os.environ.items() if not k.startswith("VAULT_")}
base_env.update({"XDG_CACHE_HOME": cache, "VAULT_WATCH_IDLE": "120", "HOME": work})


def run(argv, env=None, check=True):
    r = subprocess.run([args.vault] + argv, cwd=root, env=env or base_env, capture_output=True)
    if check and r.returncode != 0:
        sys.exit(f"seed {args.seed}: {' '.join(argv)} failed: {r.stderr.decode(errors='replace')}")
    return r


def room_text(title, day, body):
    return (f"---\ntitle: {title}\ncreated: 2026-10-{day:02d}T10:00:00+09:00\n---\n\n"
            f"## 🧑 user · 10월 {day}일 <!-- 2026-10-{day:02d}T10:00:00+09:00 m-{rng.randrange(36**10):010X} -->\n\n{body}\n")


def entry_text(title, day, body):
    return f"---\ntitle: {title}\ncreated: 2026-10-{day:02d}T09:00:00+09:00\n---\n\n{body}\n"


def files(folder):
    out = []
    for dirpath, _, names in os.walk(os.path.join(root, folder)):
        out += [os.path.join(dirpath, n) for n in names if n.endswith(".md") and not n.startswith(".")]
    return sorted(out)


def write(path, text, by_rename=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if by_rename:
        tmp = path + ".tmp~"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    else:
        with open(path, "w") as f:
            f.write(text)


def change(step):
    rooms, entries = files("rooms"), files("diary")
    kind = rng.choice(["edit", "append", "rename-save", "add", "remove", "move", "copy", "odd-name",
                       "remove-folder", "damage", "pause", "pause"])
    word = rng.choice(["바다", "산책", "docker", "기차", "note"]) + str(step)
    if kind == "edit" and rooms + entries:
        path = rng.choice(rooms + entries)
        with open(path, "r+b") as f:
            data = f.read()
            at = data.rfind(b"\n", 0, len(data) - 1)
            if at > 0:
                f.seek(at + 1)
                f.write(bytes(c if c == 10 else rng.choice(b"abcxyz") for c in data[at + 1:]))
    elif kind == "append" and rooms + entries:
        with open(rng.choice(rooms + entries), "a") as f:
            f.write(f"\n덧붙임 {word}\n")
    elif kind == "rename-save" and rooms + entries:
        path = rng.choice(rooms + entries)
        with open(path) as f:
            text = f.read()
        write(path, text.replace("title: ", "title: 고친 ", 1), by_rename=True)
    elif kind == "add":
        day = rng.randrange(1, 29)
        if rng.random() < 0.5:
            # Right in rooms/, or in a year's folder (format 2).
            folder = rng.choice(["rooms", "rooms", "rooms/2026", "rooms/2025"])
            write(os.path.join(root, folder, f"r-{word}.md"), room_text(f"방 {word}", day, word))
        else:
            # Mostly the year's folder; now and then a new year's, or a folder inside it.
            folder = rng.choice(["2026", "2026", "2026", str(rng.randrange(2020, 2030)), "2026/여행"])
            write(os.path.join(root, "diary", folder, f"2026-10-{day:02d}-{word}.md"), entry_text(f"일기 {word}", day, word))
    elif kind == "remove-folder":
        folders = [d for d in os.listdir(os.path.join(root, "diary")) if d != "2026"] if os.path.isdir(os.path.join(root, "diary")) else []
        if folders:
            shutil.rmtree(os.path.join(root, "diary", rng.choice(folders)))
    elif kind == "remove" and rooms + entries:
        os.remove(rng.choice(rooms + entries))
    elif kind == "move" and rooms:
        path = rng.choice(rooms)
        folder = os.path.join(root, rng.choice(["rooms", "rooms/2026", "rooms/2024"]))
        os.makedirs(folder, exist_ok=True)
        os.replace(path, os.path.join(folder, f"moved-{word}.md"))
    elif kind == "copy" and rooms + entries:
        path = rng.choice(rooms + entries)
        stem = path[:-3]
        shutil.copyfile(path, f"{stem}.sync-conflict-20261027-101500-ABCDEFG.md")
    elif kind == "odd-name":
        name = rng.choice(["back\\slash", "tab\tname", "공백 이름"]) + f"-{step}"
        write(os.path.join(root, "rooms", name + ".md"), room_text(f"이상한 {word}", rng.randrange(1, 29), word))
    elif kind == "damage":
        listing = os.path.join(rng.choice([cache, unwatched_cache]), "vault", "listing")
        for name in os.listdir(listing) if os.path.isdir(listing) else []:
            path = os.path.join(listing, name)
            with open(path, "rb") as f:
                lines = f.read().split(b"\n")
            if len(lines) > 3:
                k = rng.randrange(2, len(lines) - 1)
                letters = [i for i, c in enumerate(lines[k]) if 97 <= c <= 122]
                if rng.random() < 0.5 and letters:
                    # A letter changed in place: the line stays whole, only its text is wrong.
                    at = rng.choice(letters)
                    lines[k] = lines[k][:at] + bytes([97 + (lines[k][at] - 96) % 26]) + lines[k][at + 1:]
                else:
                    lines[k] = lines[k][: rng.randrange(0, len(lines[k]) + 1)]
                with open(path + ".new", "wb") as f:
                    f.write(b"\n".join(lines))
                os.replace(path + ".new", path)
    else:
        time.sleep(rng.choice([0.2, 1.1, 2.5]))
    return kind


def compare(step, kind):
    for argv in (["rooms"], ["diary", "list"]):
        # The cache as this listing found it, kept for a failure's report.
        shutil.rmtree(os.path.join(work, "cache-before"), ignore_errors=True)
        if os.path.isdir(os.path.join(cache, "vault", "listing")):
            shutil.copytree(os.path.join(cache, "vault", "listing"), os.path.join(work, "cache-before"), dirs_exist_ok=True)
        listed = run(argv)
        unwatched = run(argv, env=dict(base_env, XDG_CACHE_HOME=unwatched_cache, VAULT_NO_WATCH="1", VAULT_TRACE="1"))
        # Which way the listing without the watcher went: by stamps, or reading every file.
        way = "by stamps" if b"(stamps: " in unwatched.stderr else "full"
        ways[way] = ways.get(way, 0) + 1
        none_env = dict(base_env, XDG_CACHE_HOME=tempfile.mkdtemp(dir=work), VAULT_NO_WATCH="1")
        truth = run(argv, env=none_env)
        for how, got in (("with the watcher", listed), ("without it", unwatched)):
            if got.stdout != truth.stdout:
                print(f"seed {args.seed}, step {step} (after {kind}): `vault {' '.join(argv)}` {how} differs", file=sys.stderr)
                print("listed:\n" + got.stdout.decode(errors="replace"), file=sys.stderr)
                print("read:\n" + truth.stdout.decode(errors="replace"), file=sys.stderr)
                print(f"the vault and caches are kept in {work} (the watched cache before the listing: cache-before)", file=sys.stderr)
                sys.exit(1)


os.makedirs(root)
run(["init", "."])
for i in range(args.files):
    day = rng.randrange(1, 29)
    if i % 2:
        write(os.path.join(root, "rooms", f"room-{i}.md"), room_text(f"방 {i}", day, f"첫 말 {i}"))
    else:
        write(os.path.join(root, "diary", "2026", f"2026-10-{day:02d}-e{i}.md"), entry_text(f"일기 {i}", day, f"첫 줄 {i}"))
end = time.monotonic() + args.seconds
step = 0
kinds = {}
ways = {}
while time.monotonic() < end:
    step += 1
    kind = change(step)
    kinds[kind] = kinds.get(kind, 0) + 1
    compare(step, kind)
subprocess.run(["pkill", "-f", f"search-watcher --root {root}"], check=False)
shutil.rmtree(work, ignore_errors=True)
print(f"seed {args.seed}: {step} changes, every listing as read from the files ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
      f"listings without the watcher: {', '.join(f'{k} {v}' for k, v in sorted(ways.items()))}")
