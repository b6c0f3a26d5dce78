#!/usr/bin/env bash
# How the listings and the check grow with the vault: `vault rooms`, `vault diary list` and
# `vault check` next to ripgrep doing the nearest equivalent, on seeded vaults of 5,000, 20,000
# and 50,000 files (two rooms to every three entries), in one run.
#
#   Benchmarks/growth.sh [--runs N]
#
# Each vault is generated once (seeded: the same files every time) into Benchmarks/.data/,
# which git ignores. The listing caches (outside the vault) are warm after the warm-up runs:
# these are the times of a listing after a listing. Prints a Markdown table of medians and ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine ripgrep python3 time)
install_missing_packages

runs=10
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        *) echo "usage: Benchmarks/growth.sh [--runs N]" >&2; exit 2 ;;
    esac
done

swift build -c release --static-swift-stdlib --product vault >/dev/null
vault="$PWD/.build/release/vault"
out=Benchmarks/.data/growth
mkdir -p "$out"

rows=()
for size in 5000 20000 50000; do
    rooms=$((size * 2 / 5))
    entries=$((size - rooms))
    data="Benchmarks/.data/vault-42-$rooms-$entries"
    if [ ! -f "$data/vault.yml" ]; then
        rm -rf "$data"
        python3 Benchmarks/generate-vault.py "$data" --seed 42 --rooms "$rooms" --entries "$entries" >/dev/null
        # Files changed less than 2 s before a listing are read again by the next one (the racy
        # window): measured once they have settled, as a vault is between two listings.
        sleep 3
    fi
    # Every command reads from memory.
    cat "$data"/rooms/*.md "$data"/diary/*/*.md >/dev/null 2>&1 || true
    hyperfine -N --warmup 3 --runs "$runs" --style none --export-json "$out/$size.json" \
        -n "rooms" "$vault rooms --vault $data" \
        -n "rg rooms" "rg --no-ignore -m1 ^title: $data/rooms" \
        -n "diary list" "$vault diary list --vault $data" \
        -n "rg diary" "rg --no-ignore -m1 ^title: $data/diary" \
        -n "check" "$vault check $data" \
        -n "rg check" "rg --no-ignore -c '^## .* <!-- ' $data" >/dev/null
    # Peak memory (resident, KB) of one listing after a listing, into a pipe.
    for command in rooms "diary list"; do
        /usr/bin/time -f "%M" -o "$out/$size-${command// /-}.rss" $vault $command --vault "$data" >/dev/null
    done
    rows+=("$size")
done

python3 - "$out" "${rows[@]}" <<'PY'
import json, sys
folder, sizes = sys.argv[1], sys.argv[2:]
print("| files | `vault rooms` / rg | `vault diary list` / rg | `vault check` / rg | peak memory: rooms, diary list |")
print("| --- | --- | --- | --- | --- |")
for size in sizes:
    m = {r["command"]: r["median"] * 1000 for r in json.load(open(f"{folder}/{size}.json"))["results"]}
    cells = []
    for mine, theirs in (("rooms", "rg rooms"), ("diary list", "rg diary"), ("check", "rg check")):
        cells.append(f"{m[mine]:.0f} / {m[theirs]:.0f} ms ({m[mine] / m[theirs]:.2f})")
    rss = [int(open(f"{folder}/{size}-{c}.rss").read().split()[-1]) / 1024 for c in ("rooms", "diary-list")]
    cells.append(f"{rss[0]:.0f} MB, {rss[1]:.0f} MB")
    print(f"| {int(size):,} | " + " | ".join(cells) + " |")
PY
