#!/usr/bin/env bash
# A chat turn's own time and memory on short and long rooms, against a local server that
# answers at once.
#
#   Benchmarks/chat-bench.sh
#
# Makes two committed vaults with one room each (100 and 10,000 messages, seeded; the long
# one is ~5 MB), starts Tests/Fixtures/openai_server.py on 127.0.0.1 (model "ok": the whole
# reply at once), and measures `vault chat ROOM "…"` in each:
#   - whole process, with hyperfine (medians);
#   - the time spent waiting for the server, from VAULT_TRACE (the request sent to the reply
#     received; median of 15 runs): the tool's own time is the whole process minus that;
#   - peak memory (max RSS, /usr/bin/time), median of 5 runs.
# The rooms grow by two messages a run; that does not change what is measured.
#
#   BASELINE=/path/to/older/vault Benchmarks/chat-bench.sh
#
# also times that binary's whole turn in the same hyperfine run, on the same rooms, and prints
# its medians next to this build's.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine python3 time)
install_missing_packages
swift build -c release --static-swift-stdlib --product vault 2>&1 | { grep -v "warning: the use of .mktemp' is dangerous" || true; } >/dev/null
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
# The server lives while its standard input is open: a pipe this script holds.
exec 3< <(sleep 600 2>/dev/null)
python3 Tests/Fixtures/openai_server.py "$log" <&3 > "$port_file" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null || true; exec 3<&-; rm -f "$log" "$port_file"' EXIT
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
port=$(head -1 "$port_file")

args=()
report=()
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
    turn=("$vault" chat --vault "$d" "${room%.md}" 'one more question' --provider local --model ok)
    args+=(-n "vault chat, $n messages" "'$vault' chat --vault '$d' '${room%.md}' 'one more question' --provider local --model ok")
    if [ -n "${BASELINE:-}" ]; then
        args+=(-n "baseline vault chat, $n messages"
            "'$BASELINE' chat --vault '$d' '${room%.md}' 'one more question' --provider local --model ok")
    fi
    # Waiting for the server: from the message written to the reply received.
    waits=()
    for _ in $(seq 15); do
        waits+=("$(VAULT_TRACE=1 "${turn[@]}" 2>&1 >/dev/null | awk '
            /turn: room written/ && !sent { sent = $3 }
            /turn: reply received/ { print $3 - sent; exit }')")
    done
    wait_ms=$(printf '%s\n' "${waits[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    rss=()
    for _ in $(seq 5); do rss+=("$(/usr/bin/time -f '%M' "${turn[@]}" 2>&1 >/dev/null | tail -1)"); done
    rss_kb=$(printf '%s\n' "${rss[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    report+=("$n $(stat -c %s "$d/rooms/$room") $wait_ms $rss_kb")
done
hyperfine --warmup 3 --runs 30 --style basic --export-markdown Benchmarks/.data/chat-bench.md \
    --export-json Benchmarks/.data/chat-bench.json "${args[@]}"
cat Benchmarks/.data/chat-bench.md
python3 - Benchmarks/.data/chat-bench.json "${report[@]}" <<'PY'
import json, sys
runs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
rows = [line.split() for line in sys.argv[2:]]
print()
mem = {}
for n, size, wait, rss in rows:
    whole = runs[f"vault chat, {n} messages"]["median"] * 1000
    own = whole - float(wait)
    mem[n] = int(rss)
    print(f"{n} messages ({int(size) / 1e6:.1f} MB room): median whole process {whole:.1f} ms, "
          f"waiting for the server {float(wait):.1f} ms, the tool's own time {own:.1f} ms; "
          f"peak memory {int(rss) / 1024:.1f} MB")
print(f"peak memory, 10,000 messages / 100 messages: {mem['10000'] / mem['100']:.2f}")
for n, *_ in rows:
    base = runs.get(f"baseline vault chat, {n} messages")
    if base:
        before, after = base["median"] * 1000, runs[f"vault chat, {n} messages"]["median"] * 1000
        print(f"{n} messages: baseline whole process {before:.1f} ms, this build {after:.1f} ms, "
              f"this/baseline = {after / before:.2f}")
PY
