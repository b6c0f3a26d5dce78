#!/usr/bin/env bash
# `vault ui` on a pseudo-terminal (Benchmarks/ui_bench.py): the first screen on the sample vault
# and on the 50,000-file vault, `vault ui ROOM` on a room of 10,000 messages, a key to its repaint
# while typing and while a reply streams (the loopback server's endless reply), search as you
# type on the 50,000-file vault (through its index, built once) next to `rg` over the same
# folders, and the app's peak memory on each.
#
#   Benchmarks/ui-bench.sh [RUNS]
#
# Targets (#40): first screen ≤ 50 ms, key → repaint ≤ 16 ms, a 10,000-message room ≤ 50 ms,
# search results ≤ 100 ms after the last key, memory flat with the vault's size.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
runs="${1:-9}"
command -v rg >/dev/null || {
    echo "needs ripgrep: apt-get install -y ripgrep" >&2
    exit 1
}
swift build -c release --static-swift-stdlib --product vault 2>&1 | { grep -v "warning: the use of .mktemp' is dangerous" || true; } >/dev/null
vault="$PWD/.build/release/vault"
data="$PWD/Benchmarks/.data"
export XDG_CACHE_HOME="$data/ui-cache"
mkdir -p "$XDG_CACHE_HOME"

big="$data/search-50k"
[ -d "$big/rooms" ] || python3 Benchmarks/generate-vault.py "$big" --seed 42 --rooms 20000 --entries 30000 >/dev/null
long="$data/room-10000"
[ -d "$long/rooms" ] || python3 Benchmarks/generate-vault.py "$long" --seed 7 --rooms 1 --entries 0 \
    --min-messages 10000 --max-messages 10000 >/dev/null
room=$(basename "$(find "$long/rooms" -name '*.md' | head -1)" .md)
sample=$(mktemp -d)
port_file=$(mktemp)
log=$(mktemp)
# The loopback OpenAI server lives while its standard input is open: a pipe this script holds.
exec 3< <(sleep 3600 2>/dev/null)
OPENAI_SERVER_LIFETIME=3600 python3 Tests/Fixtures/openai_server.py "$log" <&3 >"$port_file" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; exec 3<&-; rm -rf "$sample" "$port_file" "$log"' EXIT
cp -r sample-vault/. "$sample"
for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.05; done
sed -i 's/^provider: offline.*/provider: local/; s/^model: echo.*/model: forever/' "$sample/vault.yml"
printf 'providers:\n  local:\n    base_url: http://127.0.0.1:%s/v1\n' "$(head -1 "$port_file")" >>"$sample/vault.yml"
# Two rooms that stream without end: words at a fast model's pace (`steady`), and lines as fast
# as loopback carries them (`forever`, the vault's model here).
printf -- '---\ntitle: steady\ncreated: 2026-11-20T09:00:00+09:00\nmodel: steady\n---\n\n' >"$sample/rooms/steady.md"
printf -- '---\ntitle: flood\ncreated: 2026-11-20T09:00:00+09:00\n---\n\n' >"$sample/rooms/flood.md"

# The search index of the 50,000-file vault, built once (`vault search --index`), as a person who
# searches often has it; the app searches through it when it is built.
query="야경"
(cd "$big" && "$vault" search --index -l "$query" >/dev/null 2>&1 || true)

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# vault: $(du -sh "$big" --exclude=.vault | cut -f1) in $(find "$big/rooms" "$big/diary" -name '*.md' | wc -l) files (50k); the room: $(grep -c '^## .* <!-- ' "$long/rooms/$room.md") messages, $(du -h "$long/rooms/$room.md" | cut -f1)"
python3 Benchmarks/ui_bench.py "$vault" --runs "$runs" --home "$sample"
python3 Benchmarks/ui_bench.py "$vault" --runs "$runs" --home "$big"
python3 Benchmarks/ui_bench.py "$vault" --runs "$runs" --room "$long" "$room"
# A reply that streams for the whole measure (the 16 MiB cap would end it first).
python3 Benchmarks/ui_bench.py "$vault" --runs "$runs" --stream "$sample" steady
VAULT_MAX_REPLY_BYTES=1G python3 Benchmarks/ui_bench.py "$vault" --runs "$runs" --stream "$sample" flood
python3 Benchmarks/ui_bench.py "$vault" --runs "$runs" --search "$big" "$query"
# The tool people would use otherwise, on the same folders: rg's whole run (all its hits).
times=()
for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    (cd "$big" && rg -F -S "$query" rooms diary >/dev/null)
    times+=($(( ($(date +%s%N) - start) / 1000 )))
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
echo "rg -F -S $query rooms diary (its whole run, all hits): $median ms"
