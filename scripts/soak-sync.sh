#!/usr/bin/env bash
# The sync soak: three machines, random chat turns, hand edits, diary writes, deletions,
# renames and syncs, then a check that every machine is identical, `git fsck` is clean and
# nothing written is missing or twice, also with one machine syncing by plain git (git commit,
# git pull, git push). The test suite runs 40 to 60 operations with one seed; this runs
# VAULT_SOAK_OPS (default 500) operations for each seed given (default 1 2 3 4 5).
#
#     scripts/soak-sync.sh            # 500 operations, seeds 1-5
#     VAULT_SOAK_OPS=2000 scripts/soak-sync.sh 42
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
swift build --build-tests >/dev/null
export VAULT_SOAK_OPS="${VAULT_SOAK_OPS:-500}"
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1 2 3 4 5)
status=0
for seed in "${seeds[@]}"; do
    if ! VAULT_SOAK_SEED="$seed" swift test --skip-build --filter SyncSoakTests 2>&1 | grep -E "^soak seed|recorded an issue|✘ Test"; then
        status=1
    fi
done
exit $status
