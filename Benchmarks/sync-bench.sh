#!/usr/bin/env bash
# vault sync next to the git command line, on a committed 50,000-file vault over file://.
#
#   Benchmarks/sync-bench.sh [RUNS]       # RUNS: runs of each timed command (default 15, at least 10)
#   VAULT_BIN=/path/to/vault Benchmarks/sync-bench.sh   # time that binary instead of building one
#   SYNC_BENCH_ONLY="merge wide" Benchmarks/sync-bench.sh  # only those parts (of merge, wide, noop, turns)
#   Benchmarks/sync-bench.sh --setup      # only make the data (below), time nothing
#
# Reuses Benchmarks/.data/git-50k (commit-bench.sh's vault; generated once if missing), and makes
# once in Benchmarks/.data/sync/: a bare remote (remote.git, file://), a clone made by
# `vault clone` (mine, machine "laptop"; its first sync pushes vault's merge-driver
# `.gitattributes`, which is the base commit of everything below) and a clone made by
# `git clone` (plain), and a second `git clone` (pipe) for plain git's whole sync.
# Benchmarks/sync-bench-commits.py then writes, seeded, on top of the base:
# refs/bench/ours and refs/bench/theirs (100 commits each: one message appended to a room or one
# line to a diary entry per commit; 10 rooms appended to on both sides, the rest disjoint),
# refs/bench/turns (500 chat turns: 1,000 messages in 50 rooms), and refs/bench/wide-ours and
# refs/bench/wide-theirs (100 rooms talked in on both sides: ours 1 message a room in 1 commit,
# theirs 100 messages a room in 10 commits).
#
# 1. merge: mine at ours, the remote's main at theirs. `vault sync` fetches, merges and pushes;
#    the merge's own time is the trace's `sync: hand edits committed` -> `sync: merged` (RUNS runs,
#    VAULT_TRACE=1), and hyperfine times the whole process. In the same hyperfine run: `git merge`
#    of the same two commits in the plain clone (it stops with conflicts on the 10 rooms both
#    sides appended to; timed anyway), and plain git's whole sync in pipe, reset like mine (at
#    ours, origin/main at the base, none of theirs' objects): `git fetch && git merge -X ours &&
#    git push` (-X ours: git's own merge completes where it would stop at the conflicts).
# 1w. wide: the same with mine at wide-ours and the remote at wide-theirs: 100 rooms merged
#    message by message (git merge: 100 conflicted rooms).
# 2. nothing to do: mine and the remote at the base; `vault sync` against `git pull && git push`
#    in the same clone, 3.5 s after the reset (the first of the 3 warm-up syncs looks at every
#    file and notes the folders; the timed ones find no folder changed).
# 3. 1,000 new messages: mine at the base, the remote at turns (the commits not in mine's
#    objects: every run fetches them); `vault sync` (fast-forward and report) against `git pull`.
#
# Every timed run starts from the same state, restored untimed (`sync-bench.sh --reset WHAT`):
# the branch, the work tree and index (then refreshed a second later, so no entry is racily
# clean), refs/remotes/origin/main, refs/vault/*, .vault/unread.json, .vault/authorship-checked
# (HEAD), and the remote's main; the objects a run added (fetched packs, merge objects, pushed
# objects) are deleted from mine and from the remote. Packing is off for both tools (gc.auto 0).
# Figures: medians and ratios; the machines are shared and noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
data="$PWD/Benchmarks/.data/sync"
remote="$data/remote.git"
mine="$data/mine"
plain="$data/plain"
pipe="$data/pipe"

# Objects added since a snapshot (a list of files under objects/) are deleted.
restore_objects() {  # GIT_DIR SNAPSHOT
    find "$1/objects" -type f | LC_ALL=C sort | LC_ALL=C comm -13 "$2" - | xargs -r rm -f
}

snapshot_objects() {  # GIT_DIR SNAPSHOT
    find "$1/objects" -type f | LC_ALL=C sort > "$2"
}

# The index refreshed over a second after the files were written: no racily clean entries.
settle_index() {  # WORK_TREE
    sleep 1.1
    git -C "$1" update-index -q --refresh >/dev/null || true
}

reset_remote() {  # REMOTE_HEAD
    git -C "$remote" update-ref refs/heads/main "$1"
    restore_objects "$remote" "$data/remote.objects"
}

reset_state() {  # merge | wide | noop | turns | plain-merge | plain-wide | pipe-merge | pipe-wide
    source "$data/ids"
    case "$1" in
    plain-merge | plain-wide)
        local head=$ours
        [ "$1" = plain-wide ] && head=$wide_ours
        git -C "$plain" merge --abort >/dev/null 2>&1 || true
        git -C "$plain" reset -q --hard "$head"
        settle_index "$plain"
        return ;;
    pipe-merge | pipe-wide)
        local head=$ours remote_head=$theirs
        [ "$1" = pipe-wide ] && head=$wide_ours remote_head=$wide_theirs
        reset_remote "$remote_head"
        git -C "$pipe" merge --abort >/dev/null 2>&1 || true
        git -C "$pipe" update-ref refs/remotes/origin/main "$base"
        git -C "$pipe" reset -q --hard "$head"
        rm -f "$pipe/.git/ORIG_HEAD"
        restore_objects "$pipe/.git" "$data/pipe.objects"
        settle_index "$pipe"
        return ;;
    merge) local head=$ours remote_head=$theirs ;;
    wide) local head=$wide_ours remote_head=$wide_theirs ;;
    noop) local head=$base remote_head=$base ;;
    turns) local head=$base remote_head=$turns ;;
    *) echo "unknown state $1" >&2; exit 2 ;;
    esac
    reset_remote "$remote_head"
    git -C "$mine" for-each-ref --format='%(refname)' refs/vault/ | while read -r ref; do git -C "$mine" update-ref -d "$ref"; done
    git -C "$mine" update-ref refs/remotes/origin/main "$base"
    git -C "$mine" reset -q --hard "$head"
    rm -f "$mine/.git/ORIG_HEAD"
    restore_objects "$mine/.git" "$data/mine.objects"
    rm -f "$mine/.vault/unread.json"
    # HEAD as the last authorship check (vault's own commits move it): a checkpoint left by the
    # last run names a merge commit the reset deleted, and the check then walks the whole history.
    echo "$head" > "$mine/.vault/authorship-checked"
    settle_index "$mine"
}

if [ "${1:-}" = "--reset" ]; then
    reset_state "$2"
    exit 0
fi

setup_only=false
if [ "${1:-}" = "--setup" ]; then setup_only=true; shift; fi
only=" ${SYNC_BENCH_ONLY:-merge wide noop turns} "
part() { [[ "$only" == *" $1 "* ]]; }
runs=${1:-15}
[ "$runs" -ge 10 ] || { echo "RUNS must be at least 10" >&2; exit 2; }
source scripts/common.sh
find_swift
VAULT_APT_PACKAGES+=(hyperfine python3)
install_missing_packages
if [ -n "${VAULT_BIN:-}" ]; then
    vault="$VAULT_BIN"  # a binary built elsewhere (another commit, an experiment)
else
    swift build -c release --static-swift-stdlib --product vault 2>&1 | { grep -v "warning: the use of .mktemp' is dangerous" || true; } >/dev/null
    vault="$PWD/.build/release/vault"
fi
self="$PWD/Benchmarks/sync-bench.sh"

export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
export VAULT_MACHINE=laptop

src="$PWD/Benchmarks/.data/git-50k"
if [ ! -d "$src/.git" ]; then
    rm -rf "$src"
    mkdir -p "$(dirname "$src")"
    python3 Benchmarks/generate-vault.py "$src" --seed 42 --rooms 20000 --entries 30000 --commit
fi

# Data made before the wide branches and the pipe clone are made again.
[ -f "$data/ids" ] && ! grep -q '^wide_theirs=' "$data/ids" && rm -f "$data/ids"
if [ ! -f "$data/ids" ]; then
    echo "Setting up $data (once)..."
    rm -rf "$data"
    mkdir -p "$data"
    # The generated commit (commit-bench.sh may have moved git-50k's branch: take its root).
    first=$(git -C "$src" rev-list --max-parents=0 HEAD)
    git init -q --bare "$remote"
    git -C "$remote" fetch -q "$src" "$first:refs/heads/main"
    git -C "$remote" symbolic-ref HEAD refs/heads/main
    # Packing is maintenance, not what is measured: off for both tools, on every repository.
    git -C "$remote" config gc.auto 0
    git -C "$remote" config receive.autogc false
    "$vault" clone "file://$remote" "$mine" >/dev/null
    git -C "$mine" config gc.auto 0
    "$vault" sync --vault "$mine" >/dev/null  # pushes the merge driver's .gitattributes
    base=$(git -C "$mine" rev-parse HEAD)
    [ "$(git -C "$remote" rev-parse main)" = "$base" ]
    python3 Benchmarks/sync-bench-commits.py "$remote" "$base" > "$data/heads"
    ours=$(awk '$1 == "ours" {print $2}' "$data/heads")
    theirs=$(awk '$1 == "theirs" {print $2}' "$data/heads")
    turns=$(awk '$1 == "turns" {print $2}' "$data/heads")
    wide_ours=$(awk '$1 == "wide-ours" {print $2}' "$data/heads")
    wide_theirs=$(awk '$1 == "wide-theirs" {print $2}' "$data/heads")
    git -C "$mine" fetch -q origin refs/bench/ours refs/bench/wide-ours
    git -C "$mine" reset -q --hard "$ours"
    git clone -q "file://$remote" "$plain"
    git -C "$plain" config gc.auto 0
    git -C "$plain" fetch -q origin refs/bench/ours:refs/heads/ours refs/bench/theirs:refs/heads/theirs \
        refs/bench/wide-ours:refs/heads/wide-ours refs/bench/wide-theirs:refs/heads/wide-theirs
    # pipe has ours' objects and none of theirs': its fetch brings what vault's does.
    git clone -q "file://$remote" "$pipe"
    git -C "$pipe" config gc.auto 0
    git -C "$pipe" fetch -q origin refs/bench/ours:refs/heads/ours refs/bench/wide-ours:refs/heads/wide-ours
    git -C "$pipe" update-ref -d refs/remotes/origin/HEAD 2>/dev/null || true
    snapshot_objects "$remote" "$data/remote.objects"
    snapshot_objects "$mine/.git" "$data/mine.objects"
    snapshot_objects "$pipe/.git" "$data/pipe.objects"
    printf 'base=%s\nours=%s\ntheirs=%s\nturns=%s\nwide_ours=%s\nwide_theirs=%s\n' \
        "$base" "$ours" "$theirs" "$turns" "$wide_ours" "$wide_theirs" > "$data/ids"
fi
source "$data/ids"
$setup_only && exit 0
echo "base $base; ours $ours (100 commits), theirs $theirs (100 commits), turns $turns (500 commits)"
changed() { git -C "$remote" -c core.quotePath=false diff --name-only "$@" | LC_ALL=C sort; }
echo "ours changes $(changed "$base" "$ours" | wc -l) paths, theirs $(changed "$base" "$theirs" | wc -l), both sides $(LC_ALL=C comm -12 <(changed "$base" "$ours") <(changed "$base" "$theirs") | wc -l); turns $(changed "$base" "$turns" | wc -l) rooms"

# 1. A merge, RUNS traced runs then hyperfine: vault sync, git merge alone, plain git's whole sync.
merge_part() {  # NAME (merge | wide) LABEL THEIRS
    local name=$1 label=$2 theirs_head=$3
    local traces="$data/traces-$name"
    rm -rf "$traces"
    mkdir -p "$traces"
    echo
    echo "$label: $runs traced runs of vault sync..."
    for i in $(seq "$runs"); do
        "$self" --reset "$name"
        start=$(date +%s%N)
        VAULT_TRACE=1 "$vault" sync --vault "$mine" 2> "$traces/$i.txt" > "$traces/$i.out"
        end=$(date +%s%N)
        echo "vault trace: $(awk -v s="$start" -v e="$end" 'BEGIN {printf "%7.1f", (e - s) / 1e6}') ms  process exited" >> "$traces/$i.txt"
    done
    # The merge made: the result must hold every message of both sides (checked by vault too).
    echo "merge commit $(git -C "$mine" rev-parse HEAD): parents $(git -C "$mine" rev-list --parents -n1 HEAD | cut -c42- | tr '\n' ' '); remote main $(git -C "$remote" rev-parse --short main)"
    echo "vault's report (last run): $(head -3 "$traces/$runs.out" | tr '\n' ' ')"
    hyperfine --warmup 1 --runs "$runs" --style basic \
        --export-markdown "$data/../sync-bench-$name.md" --export-json "$data/../sync-bench-$name.json" \
        -n "vault sync ($label)" --prepare "'$self' --reset $name" \
        "'$vault' sync --vault '$mine'" \
        -n "git merge ($label; stops with conflicts)" --prepare "'$self' --reset plain-$name" \
        "git -C '$plain' merge -q --no-edit $theirs_head >/dev/null 2>&1 || true" \
        -n "git fetch && git merge -X ours && git push ($label)" --prepare "'$self' --reset pipe-$name" \
        "git -C '$pipe' fetch -q origin && git -C '$pipe' merge -q --no-edit -X ours origin/main >/dev/null && git -C '$pipe' push -q origin HEAD:main"
    [ "$(git -C "$remote" rev-parse main^2)" = "$theirs_head" ]  # the pipeline's merge, pushed
    git -C "$plain" diff --name-only --diff-filter=U | wc -l > "$data/conflicts-$name"
    echo "git merge left $(cat "$data/conflicts-$name") conflicted paths: $(git -C "$plain" diff --name-only --diff-filter=U | head -3 | tr '\n' ' ')..."
}
if part merge; then merge_part merge "merge 100+100 commits, 50k files" "$theirs"; fi
if part wide; then merge_part wide "100 rooms x 100 messages against x 1, 50k files" "$wide_theirs"; fi
if part noop; then
# 2. Nothing to do.
"$self" --reset noop
# A sync a few seconds after the last write: vault trusts its folder stamps (FolderStamps) only
# for folders changed over 3 s ago, and the reset has just rewritten the work tree.
sleep 3.5
hyperfine --warmup 3 --runs "$((runs + 5))" --style basic \
    --export-markdown "$data/../sync-bench-noop.md" --export-json "$data/../sync-bench-noop.json" \
    -n "vault sync (nothing to do, 50k files)" "'$vault' sync --vault '$mine'" \
    -n "git pull && git push (nothing to do)" "git -C '$mine' pull -q && git -C '$mine' push -q 2>/dev/null"

fi
if part turns; then
# 3. 1,000 new messages (500 commits): a fetch and a fast-forward.
hyperfine --warmup 1 --runs "$runs" --style basic \
    --export-markdown "$data/../sync-bench-turns.md" --export-json "$data/../sync-bench-turns.json" \
    -n "vault sync (1,000 new messages, fast-forward)" --prepare "'$self' --reset turns" \
    "'$vault' sync --vault '$mine'" \
    -n "git pull (the same)" --prepare "'$self' --reset turns" "git -C '$mine' pull -q"
[ "$(git -C "$mine" rev-parse HEAD)" = "$turns" ]
fi

echo
for f in $only; do cat "$data/../sync-bench-$f.md"; echo; done
python3 - "$data" "$runs" "$only" <<'PY'
import json, os, re, statistics, sys
data, runs, only = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
out = os.path.dirname(data)
def load(name):
    return {r["command"]: r for r in json.load(open(os.path.join(out, "sync-bench-%s.json" % name)))["results"]}
def marks_of(traces):
    marks = []
    for i in range(1, runs + 1):
        m = {}
        for line in open(os.path.join(traces, "%d.txt" % i)):
            hit = re.match(r"vault trace:\s+([\d.]+) ms  (.*)", line)
            if hit and hit.group(2) not in m:
                m[hit.group(2)] = float(hit.group(1))
        marks.append(m)
    return marks
def ordered(traces, i):
    out = []
    for line in open(os.path.join(traces, "%d.txt" % i)):
        hit = re.match(r"vault trace:\s+([\d.]+) ms  (.*)", line)
        if hit:
            out.append((re.sub(r" \(.*\)$", "", hit.group(2)), float(hit.group(1))))
    names = [n for n, _ in out]
    return out[names.index("sync: hand edits committed"):names.index("sync: merged") + 1]
steps = [("sync: fetch", "sync: fetched", "fetch (git fetch)"),
         ("sync: fetched", "sync: hand edits committed", "work tree read, repair check, merge driver, hand edits"),
         ("sync: hand edits committed", "sync: merged", "the merge (plan, verify, commit, files, branch, index)"),
         ("sync: merged", "sync: push", "incoming merges checked, ahead check"),
         ("sync: push", "sync: pushed", "push (git push)")]
for name, title in (("merge", "1. merge of 100 + 100 commits"), ("wide", "1w. merge of 100 rooms x 100 messages against x 1")):
    if name not in only:
        continue
    traces = os.path.join(data, "traces-" + name)
    marks = marks_of(traces)
    def span(a, b):
        return statistics.median(m[b] - m[a] for m in marks)
    merge_times = sorted(m["sync: merged"] - m["sync: hand edits committed"] for m in marks)
    inside = [ordered(traces, i) for i in range(1, runs + 1)]
    inside = [r for r in inside if [n for n, _ in r] == [n for n, _ in inside[0]]]
    print("%s on 50,000 files (%d traced runs):" % (title, runs))
    print("   the merge itself: median %.1f ms (min %.1f, max %.1f)" % (
        statistics.median(merge_times), merge_times[0], merge_times[-1]))
    print("   traced process, by step (medians): before the first mark %.1f ms" % statistics.median(m["sync: fetch"] for m in marks))
    for a, b, what in steps:
        print("     %-58s %7.1f ms" % (what, span(a, b)))
    print("     %-58s %7.1f ms" % ("after the push, to the exit", span("sync: pushed", "process exited")))
    print("     %-58s %7.1f ms" % ("whole process (date before and after)", statistics.median(m["process exited"] for m in marks)))
    print("   inside the merge (medians of %d runs):" % len(inside))
    for k in range(1, len(inside[0])):
        print("     %-58s %7.1f ms" % (inside[0][k][0], statistics.median(r[k][1] - r[k - 1][1] for r in inside)))
    results = load(name)
    vs = [r for c, r in results.items() if c.startswith("vault sync")][0]["median"] * 1000
    gm = [r for c, r in results.items() if c.startswith("git merge")][0]["median"] * 1000
    gp = [r for c, r in results.items() if c.startswith("git fetch")][0]["median"] * 1000
    conflicts = open(os.path.join(data, "conflicts-" + name)).read().strip()
    print("   hyperfine medians: vault sync %.1f ms; git merge alone %.1f ms (stopped with %s conflicted rooms);"
          " git fetch && git merge -X ours && git push %.1f ms" % (vs, gm, conflicts, gp))
    print("   vault's merge step / git merge = %.2f (target <= 1); vault sync / plain git's sync = %.2f (target <= 1.2)" % (
        statistics.median(merge_times) / gm, vs / gp))
if "noop" in only:
    noop = load("noop")
    v = noop["vault sync (nothing to do, 50k files)"]["median"] * 1000
    g = noop["git pull && git push (nothing to do)"]["median"] * 1000
    print("2. nothing to do: vault sync %.1f ms, git pull && git push %.1f ms, vault/git = %.2f" % (v, g, v / g))
if "turns" in only:
    turns = load("turns")
    v = turns["vault sync (1,000 new messages, fast-forward)"]["median"] * 1000
    g = turns["git pull (the same)"]["median"] * 1000
    print("3. 1,000 new messages (500 commits, 50 rooms): vault sync %.1f ms, git pull %.1f ms, vault/git = %.2f" % (v, g, v / g))
PY
git -C "$plain" merge --abort >/dev/null 2>&1 || true
git -C "$pipe" merge --abort >/dev/null 2>&1 || true
# The reflogs name commits whose objects the resets deleted.
git -C "$mine" reflog expire --expire=now --all
git -C "$pipe" reflog expire --expire=now --all
for d in "$mine" "$plain" "$pipe"; do
    echo "$(basename "$d"): git status --porcelain: '$(git -C "$d" status --porcelain | head -3)'; git fsck: $(git -C "$d" fsck --strict 2>&1 | wc -l) lines"
done
