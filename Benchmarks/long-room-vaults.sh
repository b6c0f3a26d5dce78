#!/usr/bin/env bash
# The one-room vaults of the long-room benchmarks (commit-trace.sh, commit-bench.sh), made once
# in Benchmarks/.data/ with the vault binary given:
#   room-52mb          one room of ~50 MB (97,000 messages, seeded), committed
#   room-52mb-format3  the same vault migrated to format 3, after the first chat turn, which
#                      gave the room's older messages to volumes (its time is printed)
#
#   Benchmarks/long-room-vaults.sh VAULT-BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
vault=$1
long=Benchmarks/.data/room-52mb
if [ ! -d "$long/.git" ]; then
    rm -rf "$long"
    python3 Benchmarks/generate-vault.py "$long" --seed 7 --rooms 1 --entries 0 \
        --min-messages 97000 --max-messages 97000 > /dev/null
    git -C "$long" init -q
    git -C "$long" add -A
    git -C "$long" -c user.name=bench -c user.email=bench@example.invalid commit -q -m setup
fi
volumes=Benchmarks/.data/room-52mb-format3
if [ ! -d "$volumes/.git" ]; then
    rm -rf "$volumes"
    cp -a "$long" "$volumes"
    git -C "$volumes" reset -q --hard "$(git -C "$volumes" rev-list --max-parents=0 HEAD)"
    "$vault" migrate --vault "$volumes" > /dev/null
    room=$(cd "$volumes" && find rooms -name '*.md' | head -1)
    start=$(date +%s%N)
    "$vault" chat --vault "$volumes" "$(basename "$room" .md)" "the first turn in format 3" --provider offline > /dev/null 2>&1
    echo "room-52mb-format3: the first turn (its older messages to $(find "$volumes/volumes" -name '*.md' | wc -l) volumes, then the turn), whole process: $(( ($(date +%s%N) - start) / 1000000 )) ms"
fi
