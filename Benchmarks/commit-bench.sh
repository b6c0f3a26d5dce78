#!/usr/bin/env bash
# Append-one-message-and-commit, whole process: vault next to the git command line.
#
#   Benchmarks/commit-bench.sh
#
# Generates two committed synthetic vaults once (seeded; in Benchmarks/.data/):
#   - 50,000 files (20,000 rooms, 30,000 diary entries, ~300 MB)
#   - 10,000 files (4,000 rooms, 6,000 diary entries)
# and the 50,000-file one in format 2 (`vault migrate`: each room in rooms/<yyyy>/; a copy
# made once, as commit-trace.sh makes it), and times, with hyperfine, in each:
#   - git:   append a line to a room by hand, then `git add ROOM && git commit`
#   - vault: `vault chat ROOM "…"` (the offline provider answers at once): reads the
#            room, checks it for hand edits, appends two messages, writes the file
#            atomically, commits, updates the index.
# And on a room of ~50 MB (Benchmarks/long-room-vaults.sh): git on it as one file, vault on it
# in format 3 (its older messages in volumes).
# Quote the medians and their ratio; the machines are shared and noisy. Each run starts from
# the vault as generated (reset before it, untimed).
#
#   BASELINE=/path/to/older/vault Benchmarks/commit-bench.sh
#   VAULT_BIN=/path/to/vault LONG_ROOM=0 RUNS=20 Benchmarks/commit-bench.sh
#
# also times that binary (built the same way: release, static Swift standard library) in the
# same run, on a room of its own, and prints its medians next to this build's. VAULT_BIN times
# that binary instead of building one; LONG_ROOM=0 leaves out the ~50 MB room; RUNS (30).
uptime
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine python3)
install_missing_packages
if [ -n "${VAULT_BIN:-}" ]; then
    vault="$VAULT_BIN"
else
    swift build -c release --static-swift-stdlib --product vault >/dev/null
    vault="$PWD/.build/release/vault"
fi

make_vault() {  # DIR ROOMS ENTRIES
    if [ ! -d "$1/.git" ]; then
        rm -rf "$1"
        mkdir -p "$(dirname "$1")"
        python3 Benchmarks/generate-vault.py "$1" --seed 42 --rooms "$2" --entries "$3" --commit
    fi
}
make_vault Benchmarks/.data/git-50k 20000 30000
make_vault Benchmarks/.data/git-10k 4000 6000
fanned=Benchmarks/.data/git-50k-format2
if [ ! -d "$fanned/.git" ]; then
    cp -a Benchmarks/.data/git-50k "$fanned"
    git -C "$fanned" reset -q --hard "$(git -C "$fanned" rev-list --max-parents=0 HEAD)" && git -C "$fanned" clean -qfd
    "$vault" migrate --vault "$fanned" > /dev/null
fi

[ "${LONG_ROOM:-1}" = 0 ] || bash Benchmarks/long-room-vaults.sh "$vault"

export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
args=()
for size in 50k 50k-format2 10k; do
    d="$PWD/Benchmarks/.data/git-$size"
    # Every run starts from the generated state (`git reset --hard` to the first commit, or
    # the migration's; not timed), so the rooms keep their generated size (10–40 messages)
    # however often this runs.
    base=$(git -C "$d" log --format=%H --grep='^migrate: format [23]' -1)
    [ -n "$base" ] || base=$(git -C "$d" rev-list --max-parents=0 HEAD)
    # One room for git, another for vault, so neither sees the other's changes.
    rooms=$(cd "$d" && find rooms -name '*.md' | sort | sed -n 1,3p)
    git_room=$(sed -n 1p <<< "$rooms" | sed 's|^rooms/||')
    vault_room=$(basename "$(sed -n 2p <<< "$rooms")")
    baseline_room=$(basename "$(sed -n 3p <<< "$rooms")")
    git -C "$d" reset -q --hard "$base"
    # Packing (`git gc --auto`, which both git commit and vault start past gc.auto loose
    # objects) is maintenance, not the commit being measured: off for both.
    git -C "$d" config gc.auto 0
    args+=(-n "git add + commit ($size files)"
        --prepare "git -C '$d' reset -q --hard $base && printf 'one more line\n' >> '$d/rooms/$git_room'"
        "git -C '$d' add 'rooms/$git_room' && git -C '$d' commit -q -m 'edit'")
    args+=(-n "vault chat ($size files)" --prepare "git -C '$d' reset -q --hard $base"
        "'$vault' chat --vault '$d' '${vault_room%.md}' 'one more message'")
    if [ -n "${BASELINE:-}" ]; then
        args+=(-n "baseline vault chat ($size files)" --prepare "git -C '$d' reset -q --hard $base"
            "'$BASELINE' chat --vault '$d' '${baseline_room%.md}' 'one more message'")
    fi
done
if [ "${LONG_ROOM:-1}" != 0 ]; then
    # The ~50 MB room: git adds and commits it as one file; vault, in format 3, commits its file of
    # newest messages (its older ones in volumes since the first turn). Each run from the same commit.
    long="$PWD/Benchmarks/.data/room-52mb"
    volumes="$PWD/Benchmarks/.data/room-52mb-format3"
    for d in "$long" "$volumes"; do git -C "$d" config gc.auto 0; done
    long_room=$(cd "$long" && find rooms -name '*.md' | head -1)
    volumes_room=$(cd "$volumes" && find rooms -name '*.md' | head -1)
    long_base=$(git -C "$long" rev-list --max-parents=0 HEAD)
    rolled=$(git -C "$volumes" log --format=%H --grep='^volumes: ' | tail -1)
    volumes_base=$(git -C "$volumes" rev-list --reverse --ancestry-path "$rolled..HEAD" | head -1)  # the first turn's
    args+=(-n "git add + commit (52 MB room)"
        --prepare "git -C '$long' reset -q --hard $long_base && printf 'one more line\n' >> '$long/$long_room'"
        "git -C '$long' add '$long_room' && git -C '$long' commit -q -m 'edit'")
    args+=(-n "vault chat (52 MB room, format 3)" --prepare "git -C '$volumes' reset -q --hard $volumes_base"
        "'$vault' chat --vault '$volumes' '$(basename "$volumes_room" .md)' 'one more message' --provider offline")

fi
hyperfine --warmup 3 --runs "${RUNS:-30}" --style basic --export-markdown Benchmarks/.data/commit-bench.md \
    --export-json Benchmarks/.data/commit-bench.json "${args[@]}"
echo
cat Benchmarks/.data/commit-bench.md
python3 - Benchmarks/.data/commit-bench.json <<'PY'
import json, sys
runs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
print()
for size in ("50k", "50k-format2", "10k"):
    git = runs[f"git add + commit ({size} files)"]["median"] * 1000
    vault = runs[f"vault chat ({size} files)"]["median"] * 1000
    print(f"{size} files: median git add + commit {git:.1f} ms, vault chat {vault:.1f} ms, vault/git = {vault / git:.2f}")
    base = runs.get(f"baseline vault chat ({size} files)")
    if base:
        before = base["median"] * 1000
        print(f"{size} files: baseline vault chat {before:.1f} ms, this build {vault:.1f} ms, this/baseline = {vault / before:.2f}")
if "git add + commit (52 MB room)" in runs:
    git = runs["git add + commit (52 MB room)"]["median"] * 1000
    vault = runs["vault chat (52 MB room, format 3)"]["median"] * 1000
    print(f"52 MB room: median git add + commit {git:.1f} ms, vault chat (format 3) {vault:.1f} ms, vault/git = {vault / git:.2f}")
PY
for size in 50k 50k-format2 10k; do
    d="Benchmarks/.data/git-$size"
    echo "$size: git status --porcelain: '$(git -C "$d" status --porcelain | head -3)'; git fsck: $(git -C "$d" fsck --strict 2>&1 | wc -l) lines"
done
