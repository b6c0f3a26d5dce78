#!/usr/bin/env bash
# How large `.git` grows on a long room, against what `git gc` keeps of the same history.
# Makes a vault with one room of ROOM_MB megabytes of chat-like text, runs TURNS chat turns
# (the built-in offline provider), and after each prints the turn, the bytes of `.git`, of
# its loose objects and of its packs; at the end, what `git gc` keeps of a copy of `.git`.
# Packing runs in the background as it does for a person (`gc.autoDetach` left alone); the
# script waits for a running repack (`.vault/pack.lock`) before it measures.
#
#     scripts/measure-packing.sh                 # a 52 MB room, 124 turns (the case in the issue)
#     ROOM_MB=8 TURNS=40 scripts/measure-packing.sh
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
# VAULT_BIN: a vault binary to measure instead of the one built here.
if [ -z "${VAULT_BIN:-}" ]; then swift build --product vault >/dev/null; fi
vault="${VAULT_BIN:-$PWD/.build/debug/vault}"
ROOM_MB="${ROOM_MB:-52}"
TURNS="${TURNS:-124}"
dir="$(mktemp -d /tmp/vault-packing-XXXXXX)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$vault" init . --locale en_US --time-zone Asia/Tokyo >/dev/null
"$vault" room new "long room" >/dev/null
python3 - "$ROOM_MB" <<'PY'
import random, sys
random.seed(52)
words = "부산 여행 the model answer 김치찌개 swift actor 내일 because 모임 list question reply".split()
target = int(sys.argv[1]) * 1_000_000
path = "rooms/long-room.md"
text = open(path, encoding="utf-8").read()
at = text.index("<!-- vault:prompt")
lines = []
size = 0
while size < target:
    line = " ".join(random.choice(words) for _ in range(12)) + ".\n"
    lines.append(line)
    size += len(line.encode())
open(path, "w", encoding="utf-8").write(text[:at] + "".join(lines) + "\n" + text[at:])
PY
bytes() { du -sb "$1" 2>/dev/null | cut -f1; }
wait_for_repack() { python3 -c 'import fcntl,sys; f=open(sys.argv[1],"a"); fcntl.flock(f, fcntl.LOCK_EX)' .vault/pack.lock 2>/dev/null || true; }
largest=0
printf "%5s %12s %12s %12s\n" turn git loose packs
for turn in $(seq 1 "$TURNS"); do
    "$vault" chat "long room" "turn $turn" >/dev/null 2>&1
    wait_for_repack
    total=$(bytes .git)
    packs=$(bytes .git/objects/pack)
    [ "$total" -gt "$largest" ] && largest=$total
    printf "%5d %12d %12d %12d\n" "$turn" "$total" "$(find .git/objects -path '*/pack' -prune -o -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')" "$packs"
done
cp -a .git "$dir/copy.git"
git --git-dir "$dir/copy.git" gc --quiet --prune=now
echo "room: $(bytes rooms/long-room.md) bytes; largest .git: $largest; .git now: $(bytes .git); git gc keeps: $(bytes "$dir/copy.git")"
git fsck --strict >/dev/null && echo "git fsck --strict: clean"
