#!/usr/bin/env bash
# vault search next to rg, on the 50,000-file benchmark vault (about 400 MB, mostly Korean).
#
#   Benchmarks/search-bench.sh [RUNS]        # RUNS: runs of each timed command (default 10)
#   VAULT_BIN=/path/to/vault Benchmarks/search-bench.sh   # time that binary instead of building one
#
# Uses Benchmarks/.data/search-50k (generated once: generate-vault.py --seed 42, 20,000 rooms,
# 30,000 entries). Four queries, each timed side by side with `rg` over the same folders, asked
# for the same matches (literal, smart case; rg -F -S), after a warm-up run so both read from
# the page cache; the two commands run by turns (vault, rg, vault, rg, …), both printing to
# /dev/null, so a busy moment of a shared machine falls on both:
#   an ASCII word, a two-syllable Korean query, a long Korean phrase, a regular expression.
# Before timing, the number of matching lines of each tool is printed: they must agree.
# A scan takes the folders' listing saved by the search before it while no folder changed (both
# tools read every file's bytes each time); a run after a folder changed is timed too.
# Then the index is built from nothing in Benchmarks/.data/cache (its build time and size are
# printed next to the vault's size), and the same queries, with two selective ones, are timed
# through it, side by side with rg again (SKIP_INDEX_BUILD=1 keeps an index built before): the
# first run of each (no watcher yet: it starts one and checks every file's stamp) alone, then
# repeated runs with the watcher running, by turns with rg.
# Last (#41): the queries people type (a rare word and phrase, a broad word, two Korean
# syllables, one syllable, one common syllable, one Han character, a regular expression),
# vault through the index and rg side by side in one hyperfine run (`--output=pipe`).
# Figures: medians and the ratio vault/rg; the machines are shared and noisy (`uptime` is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
command -v rg >/dev/null || {
    echo "needs ripgrep: apt-get install -y ripgrep" >&2
    exit 1
}
# Times two commands by turns: one warm-up run each, then RUNS rounds; prints the medians.
timer=$(mktemp)
trap 'rm -f "$timer"' EXIT
cat >"$timer" <<'EOF_TIMER'
import json, statistics, subprocess, sys, time
runs, label, commands = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
def once(c):
    t = time.perf_counter()
    subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
for c in commands: once(c)
times = [[], []]
for _ in range(runs):
    for k, c in enumerate(commands): times[k].append(once(c))
v, g = (statistics.median(t) for t in times)
if label == "index":
    speed = f"{g/v:.1f}x faster" if v < g else "slower"
    print(f"vault (index) {v*1000:.0f} ms, rg {g*1000:.0f} ms (medians): {v/g:.2f}x rg's time ({speed})")
else:
    print(f"vault {v*1000:.0f} ms, rg {g*1000:.0f} ms (medians): {v/g:.2f}x rg")
EOF_TIMER
both() {  # both LABEL 'vault command as JSON' 'rg command as JSON'
    python3 "$timer" "$runs" "$1" "[$2, $3]"
}
json() { python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@"; }
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
    line=$(both scan "$(json "${vault_cmd[@]}")" "$(json "${rg_cmd[@]}")")
    echo "   $line"
    results+=("${kinds[$k]}: $line")
done

# A scan takes the listing of the folders saved by the search before while no folder changed;
# after a change it reads the folders again (rooms and diary on two threads) and saves them.
# Timed for the two-syllable query with `rooms/` touched before every run of both commands.
q="${queries[1]}"
line=$(both scan "$(json sh -c 'touch rooms && exec "$0" search --no-index "$1"' "$VAULT_BIN" "$q")" \
    "$(json sh -c 'touch rooms && exec rg -F -S "$0" rooms diary' "$q")")
echo "== '$q' after a folder changed (listing read again), both run as sh -c 'touch rooms && …':"
echo "   $line"
results+=("'$q', a folder changed before each run: $line")

# The index: built once (its time and size are printed), then the same queries and two
# selective ones (a rare phrase, a word that is nowhere) through it, against rg.
echo "== the index (a cache in $XDG_CACHE_HOME/vault/search)"
if [ -z "${SKIP_INDEX_BUILD:-}" ]; then rm -rf "$XDG_CACHE_HOME/vault/search"; fi
start=$(date +%s.%N)
"$VAULT_BIN" search --index docker -l 2>&1 >/dev/null | sed 's/^/   /'
build=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
index_size=$(du -cb "$XDG_CACHE_HOME"/vault/search/* | tail -1 | cut -f1)
vault_size=$(du -cb --apparent-size rooms diary | tail -1 | cut -f1)
built="built in $build s"
if [ -n "${SKIP_INDEX_BUILD:-}" ]; then built="kept (brought up to date in $build s)"; fi
line="index: $built, $((index_size / 1000000)) MB, vault $((vault_size / 1000000)) MB"
echo "   $line"
results+=("$line")
# The watcher (a background `vault search-watcher`, started by the first indexed search) is
# stopped before each query's first run, which starts it again and checks every file's stamp:
# that run is timed alone (median of 3, each after stopping the watcher). The repeated runs
# then ask the watcher, which names the files that changed (none).
stop_watcher() {
    local pids
    pids=$(pgrep -f -- "search-watcher --root $(pwd -P) --index $XDG_CACHE_HOME/vault/search/" || true)
    if [ -n "$pids" ]; then
        kill $pids 2>/dev/null || true
        for pid in $pids; do while kill -0 "$pid" 2>/dev/null; do sleep 0.01; done; done
    fi
}
first_run() {  # first_run QUERY: median of 3 first runs, in ms
    local times=()
    for _ in 1 2 3; do
        stop_watcher
        local start end
        start=$(date +%s%N)
        "$VAULT_BIN" search "$1" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        times+=($(((end - start) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}
for q in "docker" "부산" "가끔 숙소를 추천해" "가끔 메모리를 읽었다" "xyzzy-nowhere"; do
    vault_lines=$("$VAULT_BIN" search "$q" --json | wc -l || true)
    rg_lines=$(rg -F -S "$q" rooms diary | wc -l || true)
    first=$(first_run "$q")
    line=$(both index "$(json "$VAULT_BIN" search "$q")" "$(json rg -F -S "$q" rooms diary)")
    echo "   '$q' ($vault_lines lines, rg $rg_lines): first run (starts the watcher) $first ms; repeated: $line"
    results+=("index, '$q': first run $first ms; repeated: $line")
done
# #41: the queries people type, vault (index, watcher running) and rg side by side in one
# hyperfine run, output through a pipe (`--output=pipe`: both print every hit): a rare word,
# a broad word, two Korean syllables, one Korean syllable in nearly every file, one Han
# character, and a regular expression whose literal part narrows. Medians and vault ÷ rg.
if command -v hyperfine >/dev/null; then
    hq=("needle4242" "가끔 메모리를 읽었다" "docker" "야경" "꿈" "강" "東" "needle42[0-9]2")
    hk=("rare word" "rare phrase" "broad word" "two Korean syllables" "one Korean syllable"
        "one common syllable" "one Han character" "regular expression")
    args=()
    for k in "${!hq[@]}"; do
        q="${hq[$k]}"
        if [ "$q" = "needle42[0-9]2" ]; then
            args+=(-n "vault $k" "$(printf '%q ' "$VAULT_BIN" search --regex "$q")")
            args+=(-n "rg $k" "$(printf '%q ' rg -S "$q" rooms diary)")
        else
            args+=(-n "vault $k" "$(printf '%q ' "$VAULT_BIN" search "$q")")
            args+=(-n "rg $k" "$(printf '%q ' rg -F -S "$q" rooms diary)")
        fi
        echo "   '$q' (${hk[$k]}): vault $("$VAULT_BIN" search "$q" --json 2>/dev/null | wc -l) lines," \
            "rg $(rg -F -S "$q" rooms diary | wc -l)"
    done
    json_out=$(mktemp)
    hyperfine -i --warmup 2 --runs "$runs" --output=pipe --style none --export-json "$json_out" "${args[@]}" >/dev/null
    while IFS= read -r line; do
        echo "   $line"
        results+=("hyperfine, $line")
    done < <(python3 - "$json_out" "${hk[@]}" <<'PY'
import json, sys
rs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
for k, kind in enumerate(sys.argv[2:]):
    v, g = rs[f"vault {k}"]["median"], rs[f"rg {k}"]["median"]
    print(f"{kind}: vault {v*1000:.0f} ms, rg {g*1000:.0f} ms (medians): {v/g:.2f}x rg's time ({g/v:.1f}x faster)")
PY
)
    rm -f "$json_out"
fi
stop_watcher
echo
uptime
printf '%s\n' "${results[@]}"
