#!/usr/bin/env bash
# The sync kill loop, with seeded random moments: VaultSyncTests' SyncKillLoopTests. Two
# machines chat; one of them runs `vault sync` and is killed with SIGKILL at a random moment;
# then a plain `vault sync` on each must succeed with no manual step (`vault unlock`, git), and
# in the end every message is on both machines and on the remote. VAULT_SYNC_KILLS kills per
# seed (default 40; the suite runs 4). For each seed given (default 1) it prints the figures:
# kills, how many landed in the middle of a sync, messages lost, syncs that needed a manual step.
#
#     scripts/kill-loop-sync.sh              # seed 1
#     VAULT_SYNC_KILLS=200 scripts/kill-loop-sync.sh 7 8
#     VAULT_TEST_EXECUTABLE=/path/to/old/vault scripts/kill-loop-sync.sh 1   # measure another build
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
swift build --build-tests >/dev/null
export VAULT_SYNC_KILLS="${VAULT_SYNC_KILLS:-40}"
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1)
status=0
for seed in "${seeds[@]}"; do
    if ! VAULT_KILL_SEED="$seed" swift test --skip-build --filter SyncKillLoopTests 2>&1 \
        | grep -E "^sync kill loop|recorded an issue|✘ Test"; then
        status=1
    fi
done
exit $status
