#!/usr/bin/env bash
# vault mcp over stdio, timed by the official Python MCP SDK (Benchmarks/mcp_bench.py):
# start-up to the initialize answer, search and read medians, hand-edit visibility, on a copy
# of sample-vault. With BASIC_MEMORY_PYTHON (a Python >= 3.12 with basic-memory installed),
# basic-memory is measured beside it on the same notes, offline, in scratch folders.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product vault >/dev/null
VAULT="$PWD/.build/release/vault"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r sample-vault "$work/vault"
git -C "$work/vault" init -q && git -C "$work/vault" add -A && git -C "$work/vault" -c user.name=b -c user.email=b@e commit -qm sample
python3 Benchmarks/mcp_bench.py vault "$work/vault" -- "$VAULT" mcp --vault "$work/vault"
if [ -n "${BASIC_MEMORY_PYTHON:-}" ]; then
    mkdir -p "$work/bm/home" "$work/bm/notes"
    # The same rooms and entries, as basic-memory's notes.
    cp sample-vault/rooms/*.md sample-vault/diary/*/*.md "$work/bm/notes/" 2>/dev/null || true
    cp sample-vault/rooms/김치찌개-레시피.md "$work/bm/notes/kimchi.md"
    HOME="$work/bm/home" BASIC_MEMORY_HOME="$work/bm" HF_HUB_OFFLINE=1 FASTMCP_CHECK_FOR_UPDATES=off \
        "$BASIC_MEMORY_PYTHON" Benchmarks/mcp_bench.py basic-memory "$work/bm" -- \
        "$(dirname "$BASIC_MEMORY_PYTHON")/basic-memory" mcp
fi
