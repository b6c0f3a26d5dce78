#!/usr/bin/env bash
# Start-up and a chat turn's whole process, this build next to another, in one hyperfine run.
#
#   BASELINE=/path/to/old/vault Benchmarks/startup-bench.sh [RUNS] [ROUNDS]
#
# Builds vault in release mode (or takes VAULT=path), then times each binary with hyperfine:
# ROUNDS rounds (default 10) of RUNS runs (default 10) of each case, the two binaries back to
# back in each (in turn first), so that a busy spell of a shared machine falls on both. Cases:
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
runs="${1:-10}"
rounds="${2:-10}"
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

# One hyperfine run per case and round, the two binaries back to back, in turn first.
case_args() {  # NAME BINARY=PATH...: the hyperfine arguments of case NAME for each binary
    local name=$1 d base room
    shift
    for b in "$@"; do
        case "$name" in
            version) args+=(-n "version, ${b%%=*}" "'${b#*=}' --version") ;;
            *)
                d=$([ "$name" = "chat (sample vault)" ] && echo "$small" || echo "$large")
                base=$(git -C "$d" rev-parse HEAD)
                room=$(ls "$d/rooms" | sed -n 2p)
                args+=(-n "$name, ${b%%=*}" --prepare "git -C '$d' reset -q --hard $base"
                    "'${b#*=}' chat --vault '$d' '${room%.md}' 'one more message' --provider offline")
                ;;
        esac
    done
}
mkdir -p Benchmarks/.data
rm -f Benchmarks/.data/startup-bench-*.json
for round in $(seq "$rounds"); do
    order=("${binaries[@]}")
    if [ $((round % 2)) = 0 ] && [ ${#order[@]} = 2 ]; then order=("${order[1]}" "${order[0]}"); fi
    for name in "version" "chat (sample vault)" "chat (10k vault)"; do
        args=()
        case_args "$name" "${order[@]}"
        out="Benchmarks/.data/startup-bench-$round-${name%% *}-$(echo "$name" | tr -dc 'a-z0-9').json"
        hyperfine -N --warmup 3 --runs "$runs" --style none --export-json "$out" "${args[@]}" >/dev/null
    done
done
# Medians of every run of all rounds together, and the range of the rounds' own medians.
python3 - Benchmarks/.data/startup-bench-*.json <<'PY'
import json, statistics, sys
times, medians = {}, {}
for path in sys.argv[1:]:
    for r in json.load(open(path))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
        medians.setdefault(r["command"], []).append(r["median"] * 1000)
def figures(name):
    if name not in times:
        return None
    return statistics.median(times[name]) * 1000, f"{min(medians[name]):.2f}-{max(medians[name]):.2f}"
for case in ("version", "chat (sample vault)", "chat (10k vault)"):
    new = figures(f"{case}, new")
    line = f"{case:20} new {new[0]:6.2f} ms (rounds {new[1]})"
    base = figures(f"{case}, baseline")
    if base:
        line = f"{case:20} baseline {base[0]:6.2f} ms (rounds {base[1]}), new {new[0]:6.2f} ms " \
            f"(rounds {new[1]}), baseline/new {base[0] / new[0]:.3f}"
    print(line)
PY
