#!/usr/bin/env python3
"""Make the commits `sync-bench.sh` syncs: seeded, reproducible, written with the git command line.

    Benchmarks/sync-bench-commits.py GIT_DIR BASE [--seed 2026]

On top of commit BASE of the repository GIT_DIR (bare or not; nothing in a work tree is
touched), writes five branches of commits with `git fast-import`, as two machines' vaults would
make them, one commit per change:

* ``refs/bench/ours`` and ``refs/bench/theirs``: 100 commits each. Each commit appends one
  message to a room (before the prompt marker, where `vault chat` writes: a header as FORMAT.md
  gives it, a new ``m-`` + 12 Crockford base-32 id unique in its room) or one line to a diary
  entry. 10 rooms are appended to on both sides (a message-level merge; `git merge` stops with
  a conflict there, both sides having inserted at the same place); every other change is on a
  path the other side does not touch (60 rooms and 30 diary entries a side).
* ``refs/bench/turns``: 500 commits, each a chat turn (a user message and the assistant's
  reply) in one of 50 rooms, ten turns a room: 1,000 new messages.
* ``refs/bench/wide-ours`` and ``refs/bench/wide-theirs``: 100 other rooms, talked in on both
  sides: ours one commit appending one message to each (a machine's turn in every room), theirs
  10 commits each appending 10 messages to each, 100 new messages a room (10,000 in all). Every
  one of the 100 rooms is merged message by message (`git merge` stops with 100 conflicts).

Authors, dates and contents come from the seed alone, so the commit ids are the same on every
run. Prints the five commit ids. Message headers are made with `generate-vault.py`'s own
functions (Korean display date, RFC 3339 time in +09:00, Crockford ids).
"""

import argparse
import importlib.util
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("generate_vault", os.path.join(HERE, "generate-vault.py"))
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

SHARED_ROOMS = 10
SIDE_ROOMS = 60
SIDE_ENTRIES = 30
TURN_ROOMS = 50
TURNS_PER_ROOM = 10
WIDE_ROOMS = 100
WIDE_THEIRS_COMMITS = 10
WIDE_THEIRS_MESSAGES = 100  # a room

# 2026-01-01 09:00 +09:00: later than every generated message.
START = 1767225600
ID_PATTERN = re.compile(rb"<!-- \S+ m-([0-9A-Za-z]+)")

WORDS = ["오늘", "내일", "일정", "정리", "확인", "다시", "여행", "회의", "메모", "질문", "답변", "sync",
         "merge", "branch", "laptop", "phone", "부산", "서울", "커피", "산책", "note", "draft"]


def git(git_dir, *args, data=None):
    return subprocess.run(["git", "--git-dir", git_dir] + list(args), input=data, check=True,
                          capture_output=True).stdout


class Blobs:
    """The current bytes of each path: BASE's, then as the commits change them."""

    def __init__(self, git_dir, base):
        self.git_dir = git_dir
        self.base = base
        self.current = {}

    def read(self, path):
        if path not in self.current:
            self.current[path] = git(self.git_dir, "cat-file", "blob", "%s:%s" % (self.base, path))
        return self.current[path]


def sentence(rng, tag):
    return "%s %s %s %s." % (tag, rng.choice(WORDS), rng.choice(WORDS), rng.choice(WORDS))


def new_id(rng, taken):
    while True:
        mid = gen.crockford12(rng)
        if mid not in taken:
            taken.add(mid)
            return mid


def room_ids(data):
    return {m.decode() for m in ID_PATTERN.findall(data)}


def user_message(ts, mid, body):
    return "## 🧑 user · %s <!-- %s m-%s -->\n\n%s\n\n" % (gen.korean_display(ts), gen.rfc3339(ts), mid, body)


def assistant_message(ts, mid, body):
    return "## 🤖 assistant · %s · %s <!-- %s m-%s model=%s provider=%s -->\n\n%s\n\n" % (
        gen.korean_display(ts), gen.MODEL, gen.rfc3339(ts), mid, gen.MODEL, gen.PROVIDER, body)


def append_to_room(data, text):
    """`text` inserted before the prompt marker, the marker kept last (what `vault chat` writes)."""
    marker = (gen.PROMPT_MARKER + "\n").encode()
    cut = data.rfind(marker)
    if cut < 0:
        return data + text.encode() + marker
    return data[:cut] + text.encode() + data[cut:]


def fast_import(git_dir, ref, base, commits):
    """commits: [(author name, time, message, path, bytes)], or with [(path, bytes), ...] for
    path and None for bytes: a commit that changes several files."""
    out = [b"reset %s\nfrom %s\n\n" % (ref.encode(), base.encode())]
    for name, ts, message, path, data in commits:
        who = ("%s <%s@example.invalid> %d +0900" % (name, name, ts)).encode()
        msg = message.encode()
        out.append(b"commit %s\nauthor %s\ncommitter %s\ndata %d\n%s\n" % (ref.encode(), who, who, len(msg), msg))
        for one_path, one_data in (path if data is None else [(path, data)]):
            out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (one_path.encode(), len(one_data), one_data))
    git(git_dir, "fast-import", "--quiet", "--force", data=b"".join(out))
    return git(git_dir, "rev-parse", ref).decode().strip()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("git_dir", help="the repository's git folder (a bare repository, or .git)")
    p.add_argument("base", help="the commit the branches start from")
    p.add_argument("--seed", type=int, default=2026)
    a = p.parse_args(argv)
    base = git(a.git_dir, "rev-parse", a.base + "^{commit}").decode().strip()
    files = git(a.git_dir, "ls-tree", "-r", "-z", "--name-only", base, "--", "rooms", "diary").decode().split("\0")
    rooms = sorted(f for f in files if f.startswith("rooms/") and f.endswith(".md"))
    entries = sorted(f for f in files if f.startswith("diary/") and f.endswith(".md"))
    rng = random.Random(a.seed)
    picked_rooms = rng.sample(rooms, SHARED_ROOMS + 2 * SIDE_ROOMS + TURN_ROOMS)
    picked_entries = rng.sample(entries, 2 * SIDE_ENTRIES)
    shared = picked_rooms[:SHARED_ROOMS]
    side_rooms = {"ours": picked_rooms[SHARED_ROOMS:SHARED_ROOMS + SIDE_ROOMS],
                  "theirs": picked_rooms[SHARED_ROOMS + SIDE_ROOMS:SHARED_ROOMS + 2 * SIDE_ROOMS]}
    turn_rooms = picked_rooms[SHARED_ROOMS + 2 * SIDE_ROOMS:]
    side_entries = {"ours": picked_entries[:SIDE_ENTRIES], "theirs": picked_entries[SIDE_ENTRIES:]}

    heads = {}
    for side, machine, offset in (("ours", "laptop", 0), ("theirs", "phone", 7)):
        blobs = Blobs(a.git_dir, base)
        ids = {}
        srng = random.Random("%d-%s" % (a.seed, side))
        # 100 changes, the shared rooms spread among them, in a seeded order.
        changes = [("room", r) for r in shared + side_rooms[side]] + [("entry", e) for e in side_entries[side]]
        srng.shuffle(changes)
        commits = []
        for i, (kind, path) in enumerate(changes):
            ts = START + 3600 * i + 60 * offset + srng.randrange(60)
            data = blobs.read(path)
            if kind == "room":
                taken = ids.setdefault(path, room_ids(data))
                text = user_message(ts, new_id(srng, taken), sentence(srng, "%s %d:" % (machine, i)))
                data = append_to_room(data, text)
                message = "chat: %s (%s)" % (path, machine)
            else:
                line = "%s %s\n" % (machine, sentence(srng, "%d" % i))
                data = data + (b"" if data.endswith(b"\n") or not data else b"\n") + line.encode()
                message = "edit: %s (%s)" % (path, machine)
            blobs.current[path] = data
            commits.append((machine, ts, message, path, data))
        heads[side] = fast_import(a.git_dir, "refs/bench/" + side, base, commits)

    # 500 chat turns, round robin over 50 rooms.
    blobs = Blobs(a.git_dir, base)
    ids = {}
    trng = random.Random("%d-turns" % a.seed)
    commits = []
    for k in range(TURN_ROOMS * TURNS_PER_ROOM):
        path = turn_rooms[k % TURN_ROOMS]
        ts = START + 600 * k
        data = blobs.read(path)
        taken = ids.setdefault(path, room_ids(data))
        text = user_message(ts, new_id(trng, taken), sentence(trng, "질문 %d:" % k))
        text += assistant_message(ts + 3, new_id(trng, taken), sentence(trng, "답변 %d:" % k) + "\n\n" + sentence(trng, "-"))
        data = append_to_room(data, text)
        blobs.current[path] = data
        commits.append(("phone", ts, "chat: %s" % path, path, data))
    heads["turns"] = fast_import(a.git_dir, "refs/bench/turns", base, commits)

    # 100 rooms talked in on both sides (rooms none of the branches above touch).
    wrng = random.Random("%d-wide" % a.seed)
    wide_rooms = wrng.sample(sorted(set(rooms) - set(picked_rooms)), WIDE_ROOMS)
    for side, machine, rounds, per_round, offset in (("wide-ours", "laptop", 1, 1, 0),
                                                     ("wide-theirs", "phone", WIDE_THEIRS_COMMITS,
                                                      WIDE_THEIRS_MESSAGES // WIDE_THEIRS_COMMITS, 30)):
        blobs = Blobs(a.git_dir, base)
        ids = {}
        srng = random.Random("%d-%s" % (a.seed, side))
        commits = []
        for r in range(rounds):
            changed = []
            for n, path in enumerate(wide_rooms):
                data = blobs.read(path)
                taken = ids.setdefault(path, room_ids(data))
                text = ""
                for k in range(per_round):
                    ts = START + 86400 + 3600 * r + 60 * offset + k
                    text += user_message(ts, new_id(srng, taken), sentence(srng, "%s %d.%d.%d:" % (machine, r, n, k)))
                data = append_to_room(data, text)
                blobs.current[path] = data
                changed.append((path, data))
            commits.append((machine, START + 86400 + 3600 * r + 60 * offset, "sync: %d rooms (%s)" % (len(changed), machine),
                            changed, None))
        heads[side] = fast_import(a.git_dir, "refs/bench/" + side, base, commits)

    for side in ("ours", "theirs", "turns", "wide-ours", "wide-theirs"):
        print("%s %s" % (side, heads[side]))


if __name__ == "__main__":
    sys.exit(main())
