#!/usr/bin/env bash
# Quick exits of the commands that use git (`--help`, usage errors, a room that does not
# exist), two at a time: none may die of a signal. libgit2 loads on a thread started with the
# process, and an exit that ran the libraries' clean-up under it crashed (SIGSEGV) about twice
# in a thousand runs. The test suite runs 300 with one seed; this runs VAULT_EXIT_RUNS (default 1000) for each
# seed given (default 1).
#
#     scripts/quick-exit-loop.sh              # 1,000 runs
#     VAULT_EXIT_RUNS=5000 scripts/quick-exit-loop.sh 1 2 3
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
swift build --build-tests >/dev/null
export VAULT_EXIT_RUNS="${VAULT_EXIT_RUNS:-1000}"
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1)
status=0
for seed in "${seeds[@]}"; do
    if ! VAULT_EXIT_SEED="$seed" swift test --skip-build --filter QuickExitTests 2>&1 \
        | grep -E "^quick exits|runs failed|✘ Test"; then
        status=1
    fi
done
exit $status
