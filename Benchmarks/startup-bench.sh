#!/usr/bin/env bash
# Start-up and a chat turn's whole process, this build next to another, in one hyperfine run.
#
#   BASELINE=/path/to/old/vault Benchmarks/startup-bench.sh [RUNS]
#
# Builds vault in release mode (or takes VAULT=path), then times each binary in one hyperfine
# run (the baseline's runs of a case just before this build's), on:
#   - `vault --version`: process start-up alone (no vault, no git);
#   - `vault chat ROOM "…"` in a copy of sample-vault/ (committed; the offline provider answers
#     at once): start-up, libgit2 loaded with the process, a turn and its commit;
#   - the same in Benchmarks/.data/git-10k (10,000 files, as commit-bench.sh makes it): the
#     commit on a larger tree.
# Every chat run starts from the vault as committed (`git reset --hard`, not timed). Quote the
# medians and their ratio (baseline / this build); the machines are shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine python3)
install_missing_packages
runs="${1:-40}"
if [ -z "${VAULT:-}" ]; then
    swift build -c release --static-swift-stdlib --product vault >/dev/null
    VAULT="$PWD/.build/release/vault"
fi
binaries=("new=$VAULT")
[ -n "${BASELINE:-}" ] && binaries=("baseline=$BASELINE" "${binaries[@]}")

export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
small=$(mktemp -d)
trap 'rm -rf "$small"' EXIT
cp -R sample-vault/. "$small"
git -C "$small" init -q && git -C "$small" config gc.auto 0
git -C "$small" add -A && git -C "$small" commit -q -m setup
large="$PWD/Benchmarks/.data/git-10k"
if [ ! -d "$large/.git" ]; then
    rm -rf "$large"
    mkdir -p "$(dirname "$large")"
    python3 Benchmarks/generate-vault.py "$large" --seed 42 --rooms 4000 --entries 6000 --commit
fi
git -C "$large" config gc.auto 0

args=()
for d in "$small" "$large"; do
    base=$(git -C "$d" rev-parse HEAD)
    room=$(ls "$d/rooms" | sed -n 2p)
    size=$([ "$d" = "$small" ] && echo sample || echo 10k)
    for b in "${binaries[@]}"; do
        args+=(-n "chat ($size vault), ${b%%=*}" --prepare "git -C '$d' reset -q --hard $base"
            "'${b#*=}' chat --vault '$d' '${room%.md}' 'one more message' --provider offline")
    done
done
for b in "${binaries[@]}"; do args+=(-n "--version, ${b%%=*}" "'${b#*=}' --version"); done
out=Benchmarks/.data/startup-bench.json
mkdir -p Benchmarks/.data
hyperfine -N --warmup 5 --runs "$runs" --style basic --export-json "$out" "${args[@]}" >/dev/null
python3 - "$out" <<'PY'
import json, sys
runs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
for case in ("--version", "chat (sample vault)", "chat (10k vault)"):
    new = runs[f"{case}, new"]["median"] * 1000
    base = runs.get(f"{case}, baseline")
    line = f"{case:22} new {new:6.2f} ms"
    if base:
        old = base["median"] * 1000
        line = f"{case:22} baseline {old:6.2f} ms, new {new:6.2f} ms, baseline/new {old / new:.3f}"
    print(line)
PY
