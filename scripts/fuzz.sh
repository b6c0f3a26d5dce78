#!/usr/bin/env bash
# Fuzzes the front-matter and Markdown readers, the room writer's escaping, the SSE decoder and
# the import readers (ChatGPT, Claude, Claude Code, Day One, jrnl, llm, zip archives) with
# libFuzzer (Fuzz/README.md). Builds `vault-fuzz` with -sanitize=fuzzer into .build/fuzz,
# then runs each target for SECONDS (default 300) on a working corpus in .build/fuzz/corpus,
# seeded from Fuzz/corpus and Fuzz/regressions. A crash or broken property stops that target and
# leaves the input in Fuzz/crashes/; add it to Fuzz/regressions/<target>/ (and a test) once fixed.
# So does a hang (an input run longer than 10 s) and memory past RSS_LIMIT_MB (default 1024): the
# import readers hold what they read to a cap, so no input of 4 KiB needs more.
#
#     scripts/fuzz.sh                     # every target, 5 minutes each
#     SECONDS_PER_TARGET=3600 scripts/fuzz.sh room writer
#     SECONDS_PER_TARGET=600 scripts/fuzz.sh chatgpt claude claude-code dayone jrnl llm zip
#
# The test suite runs the same targets briefly without libFuzzer (FuzzTargetTests: the corpus,
# the regressions and 3,000 seeded mutations each, 1,000 for the import readers').
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
seconds="${SECONDS_PER_TARGET:-300}"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(room diary writer event-stream chatgpt claude claude-code dayone jrnl llm zip)
# The build's output is kept, and shown when it fails (else the script would end without a word).
mkdir -p .build/fuzz
if ! swift build -c release --product vault-fuzz --scratch-path .build/fuzz \
    -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -DVAULT_LIBFUZZER >.build/fuzz/build.log 2>&1; then
    grep -E "error:" -A3 .build/fuzz/build.log | head -40 || tail -40 .build/fuzz/build.log
    echo "fuzz.sh: the fuzzer did not build (.build/fuzz/build.log)" >&2
    exit 2
fi
fuzzer=.build/fuzz/release/vault-fuzz
mkdir -p Fuzz/crashes
status=0
summary=()
for target in "${targets[@]}"; do
    corpus=".build/fuzz/corpus/$target"
    mkdir -p "$corpus"
    cp Fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
    cp Fuzz/regressions/"$target"/* "$corpus"/ 2>/dev/null || true
    echo "== $target: $seconds s"
    # The Swift runtime's backtracer is off, so libFuzzer's handler keeps the crashing input.
    if ! SWIFT_BACKTRACE=enable=no VAULT_FUZZ_TARGET="$target" "$fuzzer" "$corpus" \
        -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb="${RSS_LIMIT_MB:-1024}" \
        -artifact_prefix="Fuzz/crashes/$target-" -print_final_stats=1 2>&1 \
        | grep -E "^(stat::|SUMMARY|artifact_prefix|Fatal error|.*Test unit written)|vault-fuzz $target"; then
        :
    fi
    # A crash, a broken property, a hang past -timeout or memory past -rss_limit_mb each leave an input.
    # (By kind: `claude-*` alone would count claude-code's.)
    found=$(find Fuzz/crashes -maxdepth 1 \( -name "$target-crash-*" -o -name "$target-timeout-*" \
        -o -name "$target-oom-*" -o -name "$target-leak-*" \) | wc -l)
    summary+=("$target: $found input(s) in Fuzz/crashes (crashes, hangs past 10 s, memory past ${RSS_LIMIT_MB:-1024} MB)")
    if [ "$found" -gt 0 ]; then status=1; fi
done
printf '%s\n' "${summary[@]}"
exit $status
