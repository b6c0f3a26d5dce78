#!/usr/bin/env bash
# A chat turn's commit in-process: `commit: start` → `index updated` from VAULT_TRACE, and its
# steps (blobs, trees, objects flushed, branch moved, index), on commit-bench.sh's committed
# 50,000- and 10,000-file vaults (generated there if missing), on the 50,000-file one in format 2
# (`vault migrate`: each room in rooms/<yyyy>/, ~2,000 a year), and on a one-room vault whose
# room is ~50 MB (97,000 messages, seeded; made once in Benchmarks/.data/room-52mb), as one file
# and in format 3 (its older messages in volumes; room-52mb-format3).
#
#   Benchmarks/commit-trace.sh                         # ROUNDS=6 rounds of 3 turns each
#   BASELINE=/path/to/older/vault Benchmarks/commit-trace.sh
#
# With BASELINE the two binaries take turns, round by round, each on a room of its own, so a
# busy disk slows both alike. Prints medians per step, in ms. Packing is off (gc.auto 0).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
swift build -c release --static-swift-stdlib --product vault >/dev/null
vault="$PWD/.build/release/vault"
rounds=${ROUNDS:-6}

for size in 50k:20000:30000 10k:4000:6000; do
    IFS=: read -r name rooms entries <<< "$size"
    d=Benchmarks/.data/git-$name
    [ -d "$d/.git" ] || python3 Benchmarks/generate-vault.py "$d" --seed 42 --rooms "$rooms" --entries "$entries" --commit
done
# The 50,000-file vault in format 2 (each room in rooms/<yyyy>/): a copy of git-50k, migrated once.
fanned=Benchmarks/.data/git-50k-format2
if [ ! -d "$fanned/.git" ]; then
    rm -rf "$fanned"
    cp -a Benchmarks/.data/git-50k "$fanned"
    git -C "$fanned" reset -q --hard && git -C "$fanned" clean -qfd
    "$vault" migrate --vault "$fanned" > /dev/null
fi
# The ~50 MB room, as one file and in format 3 (its older messages in volumes: a turn hashes a
# file of at most 2 MiB); the first turn's rollover is timed on its own when that vault is made.
bash Benchmarks/long-room-vaults.sh "$vault"
long=Benchmarks/.data/room-52mb
volumes=Benchmarks/.data/room-52mb-format3

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
turns() {  # BINARY VAULT ROOM-INDEX FILE
    local room
    room=$(cd "$2" && find rooms -name '*.md' | sort | sed -n "$3p")
    [ -n "$room" ] || room=$(cd "$2" && find rooms -name '*.md' | sort | sed -n 1p)  # the one-room vault: both binaries on it
    room=$(basename "$room")
    for _ in 1 2 3; do
        VAULT_TRACE=1 "$1" chat --vault "$2" "${room%.md}" "one more message" --provider offline 2>&1 >/dev/null |
            awk '/commit: start/{s=$3} /blobs written/{b=$3} /trees written/{t=$3} /objects flushed/{o=$3}
                 /branch moved/{m=$3} /index updated/{i=$3}
                 END{printf "%.2f %.2f %.2f %.2f %.2f %.2f\n", b-s, t-b, o-t, m-o, i-m, i-s}' >> "$4"
    done
}
for d in Benchmarks/.data/git-50k "$fanned" Benchmarks/.data/git-10k "$long" "$volumes"; do
    git -C "$d" config gc.auto 0
    for _ in $(seq "$rounds"); do
        turns "$vault" "$d" 1 "$out/$(basename "$d").this"
        if [ -n "${BASELINE:-}" ]; then turns "$BASELINE" "$d" 2 "$out/$(basename "$d").baseline"; fi
    done
done
python3 - "$out" <<'PY'
import os, statistics, sys
steps = "blobs trees objects-flushed branch-moved index total".split()
for name in sorted(os.listdir(sys.argv[1])):
    rows = [list(map(float, l.split())) for l in open(os.path.join(sys.argv[1], name)) if l.strip()]
    medians = " ".join(f"{s} {statistics.median(r[k] for r in rows):.1f}" for k, s in enumerate(steps))
    print(f"{name:22} {len(rows)} turns, medians (ms): {medians}")
PY
uptime
