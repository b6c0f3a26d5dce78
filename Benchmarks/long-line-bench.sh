#!/usr/bin/env bash
# vault search on one line of 16 MiB, next to rg: the time must grow with the line's length, not
# its square (it took 106 s on a line of 1.6 million characters).
#
#   Benchmarks/long-line-bench.sh [RUNS]        # RUNS: hyperfine runs of each command (default 5)
#   VAULT_BIN=/path/to/vault Benchmarks/long-line-bench.sh
#   LONG_LINE_BUDGET=10 …                       # seconds a vault search may take (exit 1 past it)
#
# Makes Benchmarks/.data/long-line (once): a vault whose one room holds, after its front-matter
# and a message header, a single line of 16 MiB (English and Korean words, 'a' in one word of
# three), and a second room with the same line in NFD (every accented letter decomposed: the
# piece is normalized before it is searched). Times with hyperfine, rg beside each:
#   `a` (a hit every few bytes) with -l, plain, --json and -C 2; a word (`zebra`, 1 in 200 words);
#   the same word in the NFD room; then the index: built from nothing (the prepare step deletes
#   it), and a query through it.
# Before timing, the number of matching lines of both tools is printed: they must agree. Output
# goes to a pipe (rg stops at its first match when it writes to /dev/null); a command that finds
# nothing (exit status 1) is timed all the same (-i).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
source scripts/common.sh
VAULT_APT_PACKAGES+=(hyperfine ripgrep python3)
install_missing_packages
if [ -z "${VAULT_BIN:-}" ]; then
    find_swift
    swift build -c release --static-swift-stdlib --product vault >/dev/null
    VAULT_BIN="$PWD/.build/release/vault"
fi
data="$PWD/Benchmarks/.data/long-line"
if [ ! -f "$data/vault.yml" ]; then
    mkdir -p "$data/rooms" "$data/diary"
    printf 'name: long line\n' >"$data/vault.yml"
    python3 - "$data" <<'EOF_MAKE'
import random, sys, unicodedata
random.seed(16)
words = ["a", "café", "the", "brown", "fox", "부산", "여행", "naïve", "jumps", "over", "lazy", "dog"]
parts, size = [], 0
while size < 16 << 20:
    w = "zebra" if random.random() < 0.005 else random.choice(words)
    parts.append(w)
    size += len(w.encode()) + 1
line = " ".join(parts)
head = ("---\ntitle: {t}\ncreated: 2026-11-20T09:00:00+09:00\n---\n\n"
        "## 🧑 user · 2026-11-20 09:00 <!-- 2026-11-20T09:00:00+09:00 m-aaaaaaaa -->\n\n")
with open(f"{sys.argv[1]}/rooms/one-line.md", "w") as f:
    f.write(head.format(t="one line") + line + "\n")
with open(f"{sys.argv[1]}/rooms/one-line-nfd.md", "w") as f:
    f.write(head.format(t="one line, NFD") + unicodedata.normalize("NFD", line) + "\n")
EOF_MAKE
fi
export XDG_CACHE_HOME="$PWD/Benchmarks/.data/long-line-cache"
export VAULT_NO_WATCH=1
cd "$data"
uptime
echo "vault: $(du -b --apparent-size rooms/one-line.md | cut -f1) bytes in rooms/one-line.md (one line), NFD copy $(du -b --apparent-size rooms/one-line-nfd.md | cut -f1)"
count() {  # count 'vault args' 'rg args'
    echo "   matching lines: vault $(eval "$VAULT_BIN search $1 --json" | wc -l), rg $(eval "rg $2" | wc -l)"
}
# The time budget of each vault search on the 16 MiB line (seconds; LONG_LINE_BUDGET): linear
# in the line's length, a search takes well under it; the quadratic scan took hours.
budget="${LONG_LINE_BUDGET:-10}"
over=0
results=$(mktemp)
trap 'rm -f "$results"' EXIT
compare() {  # compare NAME 'vault args' 'rg args'
    echo "== $1"
    hyperfine -N -i --output=pipe --style basic --runs "$runs" --warmup 1 --export-json "$results" \
        -n "vault $2" "$VAULT_BIN search $2" -n "rg $3" "rg $3" 2>&1 | grep -E 'Time|±|faster|slower|vault|rg' | sed 's/^/   /'
    if ! python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["results"][0]["mean"] > float(sys.argv[2]))' \
        "$results" "$budget"; then
        echo "   OVER BUDGET: vault took more than ${budget} s"
        over=1
    fi
}
rm -rf "$XDG_CACHE_HOME"
count "--no-index --room one-line a" "-F -S a rooms/one-line.md"
compare "'a' -l (scan)" "--no-index a -l --room one-line" "-F -S -l a rooms/one-line.md"
compare "'a' (scan, every hit highlighted in the line)" "--no-index a --color always --room one-line" "-F -S --color always a rooms/one-line.md"
compare "'a' --json (scan)" "--no-index a --json --room one-line" "-F -S --json a rooms/one-line.md"
compare "'a' -C 2 (scan)" "--no-index a -C 2 --room one-line" "-F -S -C 2 a rooms/one-line.md"
count "--no-index --room one-line zebra" "-F -S zebra rooms/one-line.md"
compare "'zebra' (scan)" "--no-index zebra --room one-line" "-F -S zebra rooms/one-line.md"
compare "'café' in the NFD room (normalized; rg looks for the NFC bytes, finds none)" \
    "--no-index café --room one-line-nfd" "-F -S café rooms/one-line-nfd.md"
echo "== the index"
hyperfine -N --output=pipe --style basic --runs "$runs" \
    --prepare "rm -rf $XDG_CACHE_HOME" -n "index built from nothing, then 'zebra'" \
    "$VAULT_BIN search --index zebra -l" 2>&1 | grep -E 'Time|±' | sed 's/^/   /'
"$VAULT_BIN" search --index zebra -l >/dev/null 2>&1
compare "'zebra' through the index" "--index zebra" "-F -S zebra rooms"
compare "'brown fox' -l through the index" "--index 'brown fox' -l" "-F -S -l 'brown fox' rooms"
if [ "$over" -ne 0 ]; then
    echo "some searches went over the ${budget} s budget" >&2
    exit 1
fi
echo "every vault search within the ${budget} s budget"
