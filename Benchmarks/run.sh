#!/usr/bin/env bash
# The vault benchmarks, side by side with the tools people would use otherwise.
#
#   Benchmarks/run.sh [--rooms N] [--entries N] [--vault DIR] [--all]
#
# --vault measures an existing vault (e.g. commit-bench's Benchmarks/.data/git-50k) instead.
# --all then runs the benchmark of each of #25's other goals: growth.sh (listings and check at
# 5,000, 20,000 and 50,000 files, with memory), commit-bench.sh and commit-trace.sh (a chat
# turn's commit), search-bench.sh (the index's size, build and queries).
#
# Builds vault in release mode, generates the synthetic vault once (seeded; kept in
# Benchmarks/.data/, which git ignores), then measures:
#   1. parse throughput on one core (vault-bench: files already in memory);
#   2. `vault rooms`, `vault diary list`, `vault check` and `vault check ROOM` wall
#      time with hyperfine, next to ripgrep doing the nearest equivalent (reading
#      every room's or entry's title; scanning every file, or the one room, for
#      message headers). The listing cache (outside the vault) is warm after the
#      warm-up runs: these are the times of a listing after a listing. The listings
#      run twice: as a person runs them (the search watcher answers what changed), and
#      with VAULT_NO_WATCH=1 (every file stamped: a vault on a network file system, or
#      the first listing after the watcher ended), through `env`;
#   3. the time to the first screen of `vault rooms` and `vault diary list` on a terminal
#      (first-screen.py: a pseudo-terminal, the default pager), next to rg's; again
#      without the watcher.
# Medians are what to quote: the machines are shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine ripgrep python3 less)
install_missing_packages

rooms=20000
entries=30000
all=0
while [ $# -gt 0 ]; do
    case "$1" in
        --rooms) rooms="$2"; shift 2 ;;
        --entries) entries="$2"; shift 2 ;;
        --vault) data="$2"; shift 2 ;;
        --all) all=1; shift ;;
        *) echo "usage: Benchmarks/run.sh [--rooms N] [--entries N] [--vault DIR] [--all]" >&2; exit 2 ;;
    esac
done

swift build -c release --static-swift-stdlib --product vault >/dev/null
swift build -c release --static-swift-stdlib --product vault-bench >/dev/null
vault="$PWD/.build/release/vault"
bench="$PWD/.build/release/vault-bench"

data="${data:-Benchmarks/.data/vault-42-$rooms-$entries}"
if [ ! -f "$data/vault.yml" ]; then
    rm -rf "$data"
    mkdir -p Benchmarks/.data
    python3 Benchmarks/generate-vault.py "$data" --seed 42 --rooms "$rooms" --entries "$entries"
fi
echo "== vault: $data ($(du -sh "$data" | cut -f1), $(find "$data" -name '*.md' | wc -l) files)"
# Warm the page cache so every command reads from memory.
cat "$data"/rooms/*.md "$data"/diary/*/*.md > /dev/null 2>&1 || true

echo
echo "== 1. parse throughput, one core"
"$bench" parse "$data" --rounds 7

echo
echo "== 2. vault rooms / diary list / check, whole process, next to ripgrep"
room="$(find "$data/rooms" -name '*.md' -print -quit)"
hyperfine -N --warmup 3 --runs 15 --style basic --export-markdown Benchmarks/.data/last-run.md \
    --export-json Benchmarks/.data/last-run.json \
    -n "vault rooms" "$vault rooms --vault $data" \
    -n "rg: every room's title" "rg --no-ignore -m1 ^title: $data/rooms" \
    -n "vault diary list" "$vault diary list --vault $data" \
    -n "rg: every entry's title" "rg --no-ignore -m1 ^title: $data/diary" \
    -n "vault rooms, no watcher" "env VAULT_NO_WATCH=1 $vault rooms --vault $data" \
    -n "vault diary list, no watcher" "env VAULT_NO_WATCH=1 $vault diary list --vault $data" \
    -n "vault check" "$vault check $data" \
    -n "rg: every message header" "rg --no-ignore -c '^## .* <!-- ' $data" \
    -n "vault check ROOM" "$vault check --vault $data $room" \
    -n "rg: one room's headers" "rg --no-ignore -c '^## .* <!-- ' $room"
echo
cat Benchmarks/.data/last-run.md
python3 - Benchmarks/.data/last-run.json <<'PY'
import json, sys
runs = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
print()
for mine, theirs in (("vault rooms", "rg: every room's title"), ("vault diary list", "rg: every entry's title"),
                     ("vault rooms, no watcher", "rg: every room's title"),
                     ("vault diary list, no watcher", "rg: every entry's title"),
                     ("vault check", "rg: every message header"), ("vault check ROOM", "rg: one room's headers")):
    print(f"median {mine}: {runs[mine]:.0f} ms; {theirs}: {runs[theirs]:.0f} ms; ratio {runs[mine] / runs[theirs]:.1f}")
PY

echo
echo "== 3. the first screen on a terminal, through the pager"
python3 Benchmarks/first-screen.py "$vault" "$data" --runs 15
echo "-- without the watcher (VAULT_NO_WATCH=1)"
VAULT_NO_WATCH=1 python3 Benchmarks/first-screen.py "$vault" "$data" --runs 15

if [ "$all" = 1 ]; then
    echo
    echo "== 4. listings and check as the vault grows"
    Benchmarks/growth.sh
    echo
    echo "== 5. a chat turn's commit"
    Benchmarks/commit-bench.sh
    Benchmarks/commit-trace.sh
    echo
    echo "== 6. search, and the index's size and build"
    Benchmarks/search-bench.sh
fi
