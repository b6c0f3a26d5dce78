#!/usr/bin/env bash
# vault search next to rg, on the 50,000-file benchmark vault (about 400 MB, mostly Korean).
#
#   Benchmarks/search-bench.sh [RUNS]        # RUNS: runs of each timed command (default 10)
#   VAULT_BIN=/path/to/vault Benchmarks/search-bench.sh   # time that binary instead of building one
#
# Uses Benchmarks/.data/search-50k (generated once: generate-vault.py --seed 42, 20,000 rooms,
# 30,000 entries). Four queries, each timed with hyperfine side by side with `rg` over the same
# folders, asked for the same matches (literal, smart case; rg -F -S), after a warm-up run so
# both read from the page cache:
#   an ASCII word, a two-syllable Korean query, a long Korean phrase, a regular expression.
# Before timing, the number of matching lines of each tool is printed: they must agree.
# Then the index is built from nothing in Benchmarks/.data/cache (its build time and size are
# printed next to the vault's size), and the same queries, with two selective ones, are timed
# through it, side by side with rg again (SKIP_INDEX_BUILD=1 keeps an index built before).
# Figures: medians and the ratio vault/rg; the machines are shared and noisy (`uptime` is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
command -v hyperfine >/dev/null && command -v rg >/dev/null || {
    echo "needs hyperfine and ripgrep: apt-get install -y hyperfine ripgrep" >&2
    exit 1
}
if [ -z "${VAULT_BIN:-}" ]; then
    source scripts/common.sh
    find_swift
    swift build -c release --static-swift-stdlib --product vault >/dev/null
    VAULT_BIN="$PWD/.build/release/vault"
fi
data="$PWD/Benchmarks/.data/search-50k"
if [ ! -f "$data/vault.yml" ]; then
    echo "generating $data (50,000 files)…"
    python3 Benchmarks/generate-vault.py "$data" --seed 42 --rooms 20000 --entries 30000 >/dev/null
fi
export XDG_CACHE_HOME="$PWD/Benchmarks/.data/cache"
cd "$data"
uptime
echo "vault: $(du -sh --apparent-size rooms diary | awk '{s=s $1 " "} END {print s}')in $(find rooms diary -type f | wc -l) files"

queries=("docker" "부산" "가끔 숙소를 추천해" "docker (handles|breaks?)")
kinds=("ASCII word" "two Korean syllables" "long Korean phrase" "regular expression")
results=()
for k in "${!queries[@]}"; do
    q="${queries[$k]}"
    if [ "$k" -eq 3 ]; then
        vault_cmd=("$VAULT_BIN" search --no-index --regex "$q")
        rg_cmd=(rg -S "$q" rooms diary)
    else
        vault_cmd=("$VAULT_BIN" search --no-index "$q")
        rg_cmd=(rg -F -S "$q" rooms diary)
    fi
    vault_lines=$("${vault_cmd[@]}" --json | wc -l || true)
    rg_lines=$("${rg_cmd[@]}" | wc -l || true)
    echo "== ${kinds[$k]}: '$q': vault $vault_lines matching lines, rg $rg_lines"
    json=$(mktemp)
    hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$json" \
        -n vault "$(printf '%q ' "${vault_cmd[@]}")" -n rg "$(printf '%q ' "${rg_cmd[@]}")" >/dev/null
    line=$(python3 - "$json" <<'EOF'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) for x in json.load(open(sys.argv[1]))["results"]}
print(f"vault {r['vault']*1000:.0f} ms, rg {r['rg']*1000:.0f} ms (medians): {r['vault']/r['rg']:.2f}x rg")
EOF
)
    echo "   $line"
    results+=("${kinds[$k]}: $line")
    rm -f "$json"
done

# The index: built once (its time and size are printed), then the same queries and two
# selective ones (a rare phrase, a word that is nowhere) through it, against rg.
echo "== the index (a cache in $XDG_CACHE_HOME/vault/search)"
if [ -z "${SKIP_INDEX_BUILD:-}" ]; then rm -rf "$XDG_CACHE_HOME/vault/search"; fi
start=$(date +%s.%N)
"$VAULT_BIN" search --index docker -l 2>&1 >/dev/null | sed 's/^/   /'
build=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
index_size=$(du -cb "$XDG_CACHE_HOME"/vault/search/* | tail -1 | cut -f1)
vault_size=$(du -cb --apparent-size rooms diary | tail -1 | cut -f1)
line="index: built in $build s, $((index_size / 1000000)) MB, vault $((vault_size / 1000000)) MB"
echo "   $line"
results+=("$line")
for q in "docker" "부산" "가끔 숙소를 추천해" "가끔 메모리를 읽었다" "xyzzy-nowhere"; do
    vault_lines=$("$VAULT_BIN" search "$q" --json | wc -l || true)
    rg_lines=$(rg -F -S "$q" rooms diary | wc -l || true)
    json=$(mktemp)
    hyperfine -N -i --warmup 1 --runs "$runs" --export-json "$json" \
        -n vault "$(printf '%q ' "$VAULT_BIN" search "$q")" \
        -n rg "$(printf '%q ' rg -F -S "$q" rooms diary)" >/dev/null
    line=$(python3 - "$json" <<'EOF2'
import json, statistics, sys
r = {x["command"]: statistics.median(x["times"]) for x in json.load(open(sys.argv[1]))["results"]}
v, g = r['vault'], r['rg']
speed = f"{g/v:.1f}x faster" if v < g else "slower"
print(f"vault (index) {v*1000:.0f} ms, rg {g*1000:.0f} ms (medians): {v/g:.2f}x rg's time ({speed})")
EOF2
)
    echo "   '$q' ($vault_lines lines, rg $rg_lines): $line"
    results+=("index, '$q': $line")
    rm -f "$json"
done
echo
uptime
printf '%s\n' "${results[@]}"
