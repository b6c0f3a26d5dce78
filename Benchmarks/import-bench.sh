#!/usr/bin/env bash
# vault import next to convoviz (the ChatGPT-export-to-Markdown converter on the package index)
# on the same generated export: 3,000 conversations, ~100,000 messages.
#
#   Benchmarks/import-bench.sh [RUNS]      # RUNS of each (default 5)
#   VAULT_BIN=/path/to/vault Benchmarks/import-bench.sh
#
# The export is `generate-chatgpt-export.py --plain --zip` (seed 42): convoviz 0.1.7 rejects
# exports with images, `thoughts` or `reasoning_recap`, so both read the plain one; vault also
# imports the full one (images, branches, thoughts) once, for its own figure. Every vault run
# imports into a fresh copy of an empty vault (hyperfine --prepare); convoviz writes a fresh
# folder; each prepare ends with `sync`, so the last run's removal is not still being written
# out while the next one is timed. vault starts `git repack` in the background after its
# commit (3,700 new loose objects) and returns; each prepare first waits for the last run's
# repack to end, so it does not take the cores from the next run, and the repack's own time is
# measured once below. convoviz looks for a zip in ~/Downloads as it is imported and needs `datetime` given
# to its pydantic models (with pydantic 2.x): both done below, as Benchmarks/README.md says.
# Peak memory from GNU time. Figures: medians and the ratio, in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine python3 time)
install_missing_packages
python3 -c "import convoviz" 2>/dev/null || HOME=/nonexistent python3 -m pip show convoviz >/dev/null 2>&1 \
    || python3 -m pip install --quiet convoviz
if [ -n "${VAULT_BIN:-}" ]; then
    vault="$VAULT_BIN"
else
    swift build -c release --static-swift-stdlib --product vault 2>&1 | { grep -v "warning:" || true; } >/dev/null
    vault="$PWD/.build/release/vault"
fi
data="$PWD/Benchmarks/.data"
plain="$data/chatgpt-plain.zip"
full="$data/chatgpt-export.zip"
[ -f "$plain" ] || python3 Benchmarks/generate-chatgpt-export.py "$data/chatgpt-plain" --plain --zip >/dev/null
[ -f "$full" ] || python3 Benchmarks/generate-chatgpt-export.py "$data/chatgpt-export" --zip >/dev/null
work=$(mktemp -d /tmp/vault-import-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home/Downloads" "$work/empty"
cp "$plain" "$work/home/Downloads/export.zip"
(cd "$work/empty" && "$vault" init . --locale en_US --time-zone UTC >/dev/null)
cat > "$work/run_convoviz.py" <<'PY'
import sys
from datetime import datetime
from pathlib import Path
import convoviz.models._conversation_set as cs, convoviz.models._conversation as cv, convoviz.models._message as ms
for mod in (cs, cv, ms):
    mod.datetime = datetime
ms.Message.model_rebuild(); cv.Conversation.model_rebuild(); cs.ConversationSet.model_rebuild()
cs.ConversationSet.from_zip(sys.argv[1]).save(Path(sys.argv[2]), progress_bar=False)
PY
# The interpreter that has convoviz, found before HOME changes (pyenv's shims read ~/.pyenv).
py=$(python3 -c 'import sys; print(sys.executable)')
export HOME="$work/home"
wait_for_repack="while pgrep -f 'repac[k] -a -d -l' >/dev/null; do sleep 0.05; done"
style=(--style basic)
[ -n "${IMPORT_BENCH_SHOW:-}" ] && style=(--show-output)
# Every run writes into a folder of its own, and nothing is removed until the end: removing the
# last run's 7,000 files right before the next made ext4 look through its recently freed
# inodes on every file created (a third of the run's time in the kernel, perf showed), which a
# person importing into their vault never pays.
echo 0 > "$work/n"
next="n=\$((\$(cat '$work/n') + 1)); echo \$n > '$work/n'"
hyperfine --runs "$runs" "${style[@]}" --export-json "$data/import-bench.json" \
    --prepare "$wait_for_repack; $next; cp -a '$work/empty' '$work/v'\$n && sync" \
    --prepare "$next; sync" \
    -n "vault import (plain export)" "'$vault' import chatgpt '$plain' --vault '$work/v'\$(cat '$work/n')" \
    -n "convoviz (plain export)" "'$py' '$work/run_convoviz.py' '$plain' '$work/md'\$(cat '$work/n')"
echo
cp -a "$work/empty" "$work/v"
/usr/bin/time -f "vault import, plain export: %e s, %M KB peak" "$vault" import chatgpt "$plain" --vault "$work/v" >/dev/null
start=$(date +%s.%N)
bash -c "$wait_for_repack"
echo "its background git repack ended $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)") s after vault returned"
/usr/bin/time -f "convoviz, plain export: %e s, %M KB peak" "$py" "$work/run_convoviz.py" "$plain" "$work/md" >/dev/null
cp -a "$work/empty" "$work/full"
/usr/bin/time -f "vault import, full export (images, branches, thoughts): %e s, %M KB peak" \
    "$vault" import chatgpt "$full" --vault "$work/full"
echo "files: vault $(find "$work/full/rooms" -name '*.md' | wc -l) rooms, $(find "$work/full/attachments" -type f | wc -l) attachments;" \
    "convoviz $(find "$work/md" -name '*.md' | wc -l) Markdown files"
"$vault" check --vault "$work/full" | tail -1
python3 - "$data/import-bench.json" <<'PY'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
v, c = r["vault import (plain export)"], r["convoviz (plain export)"]
print(f"medians: vault import {v:.2f} s, convoviz {c:.2f} s; vault/convoviz = {v / c:.2f}")
PY
