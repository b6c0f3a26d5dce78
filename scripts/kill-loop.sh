#!/usr/bin/env bash
# The kill loops: `vault` doing chat turns (a reply streaming from the loopback test server),
# diary writes, rm, restore and edit, killed at seeded random moments, with SIGKILL (vault and
# its editor) and with SIGTERM (vault alone). After one more command: every file parses, `git
# fsck` is clean, `git status` is clean, and everything reported as done is there. The test
# suite runs 30 kills of each; this runs VAULT_KILL_TARGET SIGKILLs and VAULT_TERM_TARGET
# SIGTERMs (default 500 each) for each seed given (default 1), and prints the figures.
#
#     scripts/kill-loop.sh                  # 500 of each, seed 1
#     VAULT_KILL_TARGET=1000 VAULT_TERM_TARGET=200 scripts/kill-loop.sh 7 8
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
swift build --build-tests >/dev/null
export VAULT_KILL_TARGET="${VAULT_KILL_TARGET:-500}"
export VAULT_TERM_TARGET="${VAULT_TERM_TARGET:-500}"
# The test server normally ends itself after two minutes.
export FAKE_OPENAI_LIFETIME=7200
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1)
status=0
for seed in "${seeds[@]}"; do
    if ! VAULT_KILL_SEED="$seed" swift test --skip-build --filter KillLoopTests 2>&1 \
        | grep -E "^kill loop|recorded an issue|✘ Test"; then
        status=1
    fi
done
exit $status
