#!/usr/bin/env bash
# The kill loops, with seeded random moments:
# - VaultGitTests' KillLoopTests: chat turns, room new/set and rm killed with SIGKILL, each
#   followed by a chat turn that must succeed and leave everything committed; nothing may be
#   left (locks, notes, temporary files). VAULT_KILLS kills (default 200; the suite runs 16).
# - VaultChatTests' KillLoopTests: chat turns (a reply streaming from the loopback test
#   server), diary writes, rm, restore and edit, killed with SIGKILL (vault and its editor) and
#   with SIGTERM (vault alone); after one more command every file parses, `git fsck` and `git
#   status` are clean, and everything reported as done is there. Its vault is in format 3 with
#   volumes of a few kilobytes, so rooms roll over to volumes every few turns. VAULT_KILL_TARGET SIGKILLs and
#   VAULT_TERM_TARGET SIGTERMs (default 500 each; the suite runs 30 of each).
# For each seed given (default 1), it prints the figures of both.
#
#     scripts/kill-loop.sh                  # seed 1
#     VAULT_KILLS=1000 VAULT_KILL_TARGET=1000 VAULT_TERM_TARGET=200 scripts/kill-loop.sh 7 8
#     VAULT_TEST_EXECUTABLE=/path/to/old/vault scripts/kill-loop.sh 1   # measure another build
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
swift build --build-tests >/dev/null
export VAULT_KILLS="${VAULT_KILLS:-200}"
export VAULT_KILL_TARGET="${VAULT_KILL_TARGET:-500}"
export VAULT_TERM_TARGET="${VAULT_TERM_TARGET:-500}"
# The test server normally ends itself after two minutes.
export OPENAI_SERVER_LIFETIME=7200
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
