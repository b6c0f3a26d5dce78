#!/usr/bin/env bash
# The vault benchmarks, side by side with the tools people would use otherwise.
#
#   Benchmarks/run.sh [--rooms N] [--entries N]
#
# Builds vault in release mode, generates the synthetic vault once (seeded; kept in
# Benchmarks/.data/, which git ignores), then measures:
#   1. parse throughput on one core (vault-bench: files already in memory);
#   2. `vault rooms` and `vault check` wall time with hyperfine, next to ripgrep
#      doing the nearest equivalent (reading every room's title; scanning every
#      file for message headers).
# Medians are what to quote: the machines are shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine ripgrep python3)
install_missing_packages

rooms=20000
entries=30000
while [ $# -gt 0 ]; do
    case "$1" in
        --rooms) rooms="$2"; shift 2 ;;
        --entries) entries="$2"; shift 2 ;;
        *) echo "usage: Benchmarks/run.sh [--rooms N] [--entries N]" >&2; exit 2 ;;
    esac
done

swift build -c release --static-swift-stdlib --product vault >/dev/null
swift build -c release --static-swift-stdlib --product vault-bench >/dev/null
vault="$PWD/.build/release/vault"
bench="$PWD/.build/release/vault-bench"

data="Benchmarks/.data/vault-42-$rooms-$entries"
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
echo "== 2. vault rooms / vault check, whole process, next to ripgrep"
hyperfine --warmup 2 --runs 10 --style basic --export-markdown Benchmarks/.data/last-run.md \
    --export-json Benchmarks/.data/last-run.json \
    -n "vault rooms" "$vault rooms --vault $data" \
    -n "rg: every room's title" "rg --no-ignore -m1 '^title:' $data/rooms" \
    -n "vault check" "$vault check $data" \
    -n "rg: every message header" "rg --no-ignore -c '^## .* <!-- ' $data"
echo
cat Benchmarks/.data/last-run.md
python3 - Benchmarks/.data/last-run.json <<'PY'
import json, sys
runs = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
print()
for mine, theirs in (("vault rooms", "rg: every room's title"), ("vault check", "rg: every message header")):
    print(f"median {mine}: {runs[mine]:.0f} ms; {theirs}: {runs[theirs]:.0f} ms; ratio {runs[mine] / runs[theirs]:.1f}")
PY
