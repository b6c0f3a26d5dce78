#!/usr/bin/env bash
# A chat turn's own time and memory on long rooms, against a local server that answers at once.
#
#   Benchmarks/chat-bench.sh
#
# Makes two committed vaults with one room each (100 and 10,000 messages, seeded),
# starts Tests/Fixtures/openai_server.py on 127.0.0.1 (model "ok": the whole reply
# at once), and measures `vault chat ROOM "…"` whole process with hyperfine, and its
# peak memory (max RSS) with /usr/bin/time. The server answers at once, so the time is
# the tool's own: read and parse the room, commit hand edits, append, write, ask, append,
# write, commit.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine python3 time)
install_missing_packages
swift build -c release --static-swift-stdlib --product vault >/dev/null
vault="$PWD/.build/release/vault"

make_room_vault() {  # DIR MESSAGES
    if [ ! -d "$1/.git" ]; then
        rm -rf "$1"
        python3 Benchmarks/generate-vault.py "$1" --seed 7 --rooms 1 --entries 0 \
            --min-messages "$2" --max-messages "$2" > /dev/null
    fi
}
make_room_vault Benchmarks/.data/room-100 100
make_room_vault Benchmarks/.data/room-10000 10000

log=$(mktemp)
port_file=$(mktemp)
exec 3< <(sleep 600)  # the server lives while this script does
python3 Tests/Fixtures/openai_server.py "$log" <&3 > "$port_file" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log" "$port_file"' EXIT
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
port=$(head -1 "$port_file")

args=()
for n in 100 10000; do
    d="$PWD/Benchmarks/.data/room-$n"
    if ! grep -q "^providers:" "$d/vault.yml"; then
        printf 'providers:\n  local:\n    base_url: http://127.0.0.1:PORT/v1\n' >> "$d/vault.yml"
    fi
    sed -i "s#127.0.0.1:[0-9A-Z]*/v1#127.0.0.1:$port/v1#" "$d/vault.yml"
    git -C "$d" init -q 2>/dev/null || true
    git -C "$d" config gc.auto 0  # packing is maintenance, not the turn being measured
    git -C "$d" add -A && git -C "$d" -c user.name=bench -c user.email=bench@example.invalid commit -q -m setup || true
    room=$(ls "$d/rooms" | head -1)
    args+=(-n "vault chat, $n messages" "'$vault' chat --vault '$d' '${room%.md}' 'one more question' --provider local --model ok")
    echo "$n messages: $(du -h "$d/rooms/$room" | cut -f1) room; peak memory $(/usr/bin/time -f '%M KB' "$vault" chat --vault "$d" "${room%.md}" 'memory?' --provider local --model ok 2>&1 >/dev/null | tail -1)"
done
hyperfine --warmup 3 --runs 20 --style basic --export-markdown Benchmarks/.data/chat-bench.md \
    --export-json Benchmarks/.data/chat-bench.json "${args[@]}"
cat Benchmarks/.data/chat-bench.md
python3 - Benchmarks/.data/chat-bench.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"median {r['command']}: {r['median'] * 1000:.1f} ms")
PY
