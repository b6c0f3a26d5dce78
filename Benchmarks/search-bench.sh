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
# Then (#41): the queries people type (a rare word and phrase, a broad word, two Korean
# syllables, one rare syllable, one syllable in most files, a regular expression), vault through
# the index and rg side by side in one hyperfine run (`--output=pipe`); each must match.
# Last, the growth table (GROWTH=0 skips it, ONLY_GROWTH=1 runs it alone): seeded vaults of 5,000, 20,000 and 50,000 files
# (search-5k, search-20k, search-50k), an index built for each (Benchmarks/.data/cache-N), and
# a rare word, two syllables and one common syllable through it next to rg, one hyperfine run
# a vault: the index path should grow with the hits, rg with the vault.
# Figures: medians and the ratio vault/rg; the machines are shared and noisy (`uptime` is printed).
set -euo pipefail
cd "$(dirname "$0")/.."
top="$PWD"
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
# #41's query set (the hyperfine run and the growth table below). Each is in the generator's
# vault (seed 42, 50,000 files): checklist in 287 files, the phrase 118, Swift 13,520, 야경 5,091,
# 힐 231, 강 33,819, the expression 281. The generator writes no Han character, nor the words of
# an earlier set (needle4242, docker, 꿈, 東), which matched nothing.
SEARCH_QUERIES=("checklist" "가끔 메모리를 읽었다" "Swift" "야경" "힐" "강" "가끔 숙소[를은]")
SEARCH_KINDS=("rare word" "rare phrase" "broad word" "two Korean syllables" "one Korean syllable"
    "one common syllable" "regular expression")
SEARCH_REGEX="가끔 숙소[를은]"
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

results=()
if [ -z "${ONLY_GROWTH:-}" ]; then
queries=("docker" "부산" "가끔 숙소를 추천해" "docker (handles|breaks?)")
kinds=("ASCII word" "two Korean syllables" "long Korean phrase" "regular expression")
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
fi
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
if [ -z "${ONLY_GROWTH:-}" ]; then
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
# a rare phrase, a broad word, two Korean syllables, one rare Korean syllable, one syllable in
# most files, and a regular expression whose literal part narrows. Medians and vault ÷ rg.
if command -v hyperfine >/dev/null; then
    hq=("${SEARCH_QUERIES[@]}")
    hk=("${SEARCH_KINDS[@]}")
    args=()
    for k in "${!hq[@]}"; do
        q="${hq[$k]}"
        if [ "$q" = "$SEARCH_REGEX" ]; then
            args+=(-n "vault $k" "$(printf '%q ' "$VAULT_BIN" search --regex "$q")")
            args+=(-n "rg $k" "$(printf '%q ' rg -S "$q" rooms diary)")
        else
            args+=(-n "vault $k" "$(printf '%q ' "$VAULT_BIN" search "$q")")
            args+=(-n "rg $k" "$(printf '%q ' rg -F -S "$q" rooms diary)")
        fi
        if [ "$q" = "$SEARCH_REGEX" ]; then
            vault_lines=$("$VAULT_BIN" search --regex "$q" --json 2>/dev/null | wc -l)
            rg_lines=$(rg -S "$q" rooms diary | wc -l)
            rg_files=$(rg -l -S "$q" rooms diary | wc -l)
        else
            vault_lines=$("$VAULT_BIN" search "$q" --json 2>/dev/null | wc -l)
            rg_lines=$(rg -F -S "$q" rooms diary | wc -l)
            rg_files=$(rg -l -F -S "$q" rooms diary | wc -l)
        fi
        echo "   '$q' (${hk[$k]}): vault $vault_lines lines, rg $rg_lines, in $rg_files files"
        if [ "$vault_lines" -eq 0 ] || [ "$vault_lines" != "$rg_lines" ]; then
            echo "   WARNING: '$q' must match, and vault and rg must agree" >&2
        fi
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
fi

# The growth table: three queries at three sizes, each vault with an index of its own.
if [ "${GROWTH:-1}" != 0 ] && command -v hyperfine >/dev/null; then
    gq=("checklist" "야경" "강")
    table=("| files | index ÷ vault | query | files with it | vault (index) | rg | vault ÷ rg |"
        "| --- | --- | --- | --- | --- | --- | --- |")
    for size in 5k:2000:3000 20k:8000:12000 50k:20000:30000; do
        IFS=: read -r name rooms entries <<< "$size"
        dir="$top/Benchmarks/.data/search-$name"
        [ -f "$dir/vault.yml" ] || python3 "$top/Benchmarks/generate-vault.py" "$dir" --seed 42 \
            --rooms "$rooms" --entries "$entries" >/dev/null
        export XDG_CACHE_HOME="$top/Benchmarks/.data/cache-$name"
        [ "$name" = 50k ] && export XDG_CACHE_HOME="$top/Benchmarks/.data/cache"  # the index above
        cd "$dir"
        "$VAULT_BIN" search --index checklist -l >/dev/null 2>&1 || true  # builds or refreshes it
        isize=$(du -cb "$XDG_CACHE_HOME"/vault/search/* | tail -1 | cut -f1)
        vsize=$(du -cb --apparent-size rooms diary | tail -1 | cut -f1)
        files=$(find rooms diary -name '*.md' | wc -l)
        args=()
        for k in "${!gq[@]}"; do
            args+=(-n "vault $k" "$(printf '%q ' "$VAULT_BIN" search "${gq[$k]}")")
            args+=(-n "rg $k" "$(printf '%q ' rg -F -S "${gq[$k]}" rooms diary)")
        done
        json_out=$(mktemp)
        hyperfine -i --warmup 2 --runs "$runs" --output=pipe --style none --export-json "$json_out" \
            "${args[@]}" >/dev/null
        for k in "${!gq[@]}"; do
            hits=$(rg -l -F -S "${gq[$k]}" rooms diary | wc -l)
            table+=("$(python3 -c '
import json, sys
rs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
k, files, isize, vsize, q, hits = sys.argv[2:]
v, g = rs[f"vault {k}"]["median"] * 1000, rs[f"rg {k}"]["median"] * 1000
print(f"| {int(files):,} | {int(isize) / int(vsize):.2f} | `{q}` | {int(hits):,} | {v:.0f} ms | {g:.0f} ms | {v / g:.2f} |")
' "$json_out" "$k" "$files" "$isize" "$vsize" "${gq[$k]}" "$hits")")
        done
        rm -f "$json_out"
        stop_watcher
    done
    echo
    echo "== growth ($(uptime))"
    printf '%s\n' "${table[@]}"
fi
echo
uptime
printf '%s\n' "${results[@]}"
