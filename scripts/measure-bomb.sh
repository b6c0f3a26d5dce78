#!/usr/bin/env bash
# A compression bomb through sync: a collaborator pushes a room of SIZE_MIB MiB on one line
# (a few MB packed); the receiving `vault sync` must stop at the file cap, fast, with little
# memory. Prints the wall time and peak memory of that sync, and what it said.
#
#   scripts/measure-bomb.sh            # 512 MiB
#   SIZE_MIB=128 scripts/measure-bomb.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${SIZE_MIB:-512}
VAULT=${VAULT:-$PWD/.build/release/vault}
[ -x "$VAULT" ] || VAULT=$PWD/.build/debug/vault
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git init -q --bare "$work/remote.git"
cp -r sample-vault "$work/victim"
(cd "$work/victim" && "$VAULT" init . >/dev/null && "$VAULT" remote add origin "$work/remote.git" >/dev/null && "$VAULT" sync >/dev/null)
git clone -q "$work/remote.git" "$work/attacker" 2>/dev/null
git -C "$work/attacker" checkout -q main
python3 - "$work/attacker/rooms/bomb.md" "$SIZE_MIB" <<'PY'
import sys
path, mib = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write("---\ntitle: bomb\n---\n\n")
    chunk = "a" * (1 << 20)
    for _ in range(mib):
        f.write(chunk)
    f.write("\n")
PY
git -C "$work/attacker" add rooms/bomb.md
git -C "$work/attacker" -c user.name=M -c user.email=m@example.com commit -qm bomb
git -C "$work/attacker" push -q origin main
echo "pushed: $(du -sh "$work/remote.git/objects" | cut -f1) of objects for a ${SIZE_MIB} MiB room"
# The same push taken by plain `git pull` on a copy, for comparison (it writes the whole room).
cp -a "$work/victim" "$work/victim-git"
start=$(date +%s.%N)
/usr/bin/time -f "git pull: peak memory %M KiB" git -C "$work/victim-git" pull -q --no-rebase origin main 2>&1 | tail -1
end=$(date +%s.%N)
echo "git pull exited after $(python3 -c "print(f'{$end - $start:.2f}')") s"
cd "$work/victim"
start=$(date +%s.%N)
set +e
/usr/bin/time -f "peak memory: %M KiB" "$VAULT" sync 2>"$work/err"
status=$?
set -e
end=$(date +%s.%N)
cat "$work/err"
echo "vault sync exited $status after $(python3 -c "print(f'{$end - $start:.2f}')") s"
echo "rooms/bomb.md in the vault: $([ -e rooms/bomb.md ] && echo yes || echo no)"
