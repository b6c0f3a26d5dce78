#!/usr/bin/env bash
# The kill loop: `vault` processes (chat turns, room new/set, rm) killed with SIGKILL at random
# moments, each followed by a normal chat turn that must succeed and leave everything committed;
# at the end every message of a command that finished must be in the room and in HEAD, and
# nothing may be left (locks, notes, temporary files). The test suite kills 16 processes with
# one seed; this kills VAULT_KILLS (default 200) for each seed given (default 1 2 3), and prints
# for each how many kills landed in the middle of a command, left a git lock, and how many
# next commands failed.
#
#     scripts/kill-loop.sh                 # 200 kills, seeds 1-3
#     VAULT_KILLS=1000 scripts/kill-loop.sh 42
#     VAULT_TEST_EXECUTABLE=/path/to/old/vault scripts/kill-loop.sh 1   # measure another build
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
swift build --build-tests >/dev/null
export VAULT_KILLS="${VAULT_KILLS:-200}"
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1 2 3)
status=0
for seed in "${seeds[@]}"; do
    if ! VAULT_KILL_SEED="$seed" swift test --skip-build --filter KillLoopTests 2>&1 \
        | grep -E "^kill loop seed|recorded an issue|✘ Test|✔ Test"; then
        status=1
    fi
done
exit $status
