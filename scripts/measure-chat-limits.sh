#!/usr/bin/env bash
# Figures for Benchmarks/README.md ("Chat limits"; the promises: RELIABILITY.md, "Talking to servers"), against the loopback test server
# (Tests/Fixtures/openai_server.py) and a built `vault`:
#
#   - the peak memory (RSS) of a chat turn whose reply is N MiB, for each N given
#     (default 1 64 1024), with the reply cap raised above it;
#   - how long Ctrl-C takes to end a turn waiting out a `Retry-After: 30`;
#   - how long a turn takes to give up on a server that never answers (VAULT_FIRST_BYTE_TIMEOUT=3).
#
#     scripts/measure-chat-limits.sh                  # .build/release/vault, else .build/debug/vault
#     VAULT_BIN=.build/debug/vault scripts/measure-chat-limits.sh 1 16
#
# The test suite checks the same behaviours without timing them (Tests/VaultChatTests/ServerLimitsTests.swift).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${VAULT_BIN:-}
if [ -z "$bin" ]; then
    if [ -x .build/release/vault ]; then bin=.build/release/vault; else bin=.build/debug/vault; fi
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1 64 1024)

work=$(mktemp -d /tmp/vault-limits-XXXXXX)
trap 'exec 3>&- 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
mkfifo "$work/server-in"
OPENAI_SERVER_LIFETIME=7200 python3 Tests/Fixtures/openai_server.py "$work/requests.jsonl" <"$work/server-in" >"$work/port" 2>/dev/null &
exec 3>"$work/server-in"  # the server runs while this stays open
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(head -1 "$work/port")
url="http://127.0.0.1:$port/v1"
export XDG_CONFIG_HOME="$work/config" VAULT_DIR="" OPENAI_API_KEY="" OPENAI_BASE_URL="" LANG=C.UTF-8
mkdir -p "$XDG_CONFIG_HOME/vault"
printf 'api_keys:\n  TEST_KEY: %s\n' "$url" >"$XDG_CONFIG_HOME/vault/config.yml"
export TEST_KEY=sk-measure-0123456789

new_vault() {  # a fresh vault with the test server as provider `local`, and a room `r`
    local dir=$1
    "$bin" init "$dir" --locale en_US --time-zone UTC >/dev/null
    printf 'providers:\n  local:\n    base_url: %s\n    api_key_env: TEST_KEY\n' "$url" >>"$dir/vault.yml"
    git -C "$dir" -c user.name=m -c user.email=m@example.com commit -qm config vault.yml
    (cd "$dir" && "$bin" room new r >/dev/null)
}

now() { date +%s.%N; }

echo "vault: $bin"
echo "== peak memory of a turn, by reply size"
for mib in "${sizes[@]}"; do
    dir="$work/big-$mib"
    new_vault "$dir"
    start=$(now)
    (cd "$dir" && VAULT_MAX_REPLY_BYTES=$(((mib + 1) << 20)) VAULT_IDLE_TIMEOUT=600 \
        python3 "$root/Tests/Fixtures/peak_rss.py" "$work/peak" "$bin" chat r "go" --provider local --model "big-$mib" \
        >/dev/null 2>"$work/stderr") || { echo "  $mib MiB: failed: $(cat "$work/stderr")"; continue; }
    end=$(now)
    size=$(stat -c %s "$dir/rooms/r.md")
    printf '  reply %5d MiB: peak RSS %7.1f MiB, %6.1f s, room %d bytes, committed %s\n' "$mib" \
        "$(echo "$(cat "$work/peak") / 1024" | bc -l)" "$(echo "$end - $start" | bc -l)" "$size" \
        "$(git -C "$dir" cat-file -s HEAD:rooms/r.md)"
    rm -rf "$dir"
done

echo "== Ctrl-C during a Retry-After: 30 wait"
dir="$work/wait"
new_vault "$dir"
(cd "$dir" && exec env VAULT_TRACE=1 "$bin" chat r "wait" --provider local --model rate-limit-wait \
    >/dev/null 2>"$work/trace") &
pid=$!
for _ in $(seq 400); do grep -q "s before retrying" "$work/trace" 2>/dev/null && break; sleep 0.025; done
start=$(now)
kill -INT $pid
status=0
wait $pid || status=$?
end=$(now)
printf '  exit status %d, %.3f s after SIGINT\n' "$status" "$(echo "$end - $start" | bc -l)"

echo "== a server that never answers (VAULT_FIRST_BYTE_TIMEOUT=3)"
start=$(now)
status=0
(cd "$dir" && VAULT_FIRST_BYTE_TIMEOUT=3 "$bin" chat r "hello?" --provider local --model no-answer \
    >/dev/null 2>"$work/err") || status=$?
end=$(now)
printf '  exit status %d after %.2f s: %s\n' "$status" "$(echo "$end - $start" | bc -l)" "$(cat "$work/err")"
