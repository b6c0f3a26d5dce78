#!/usr/bin/env python3
"""Make a vault whose history is COMMITS commits, for timing the check of who wrote what came in.

    Benchmarks/authorship-history.py OUT_DIR --commits 20000 [--rooms 200] [--sign KEY]

A vault (format 1) in OUT_DIR, a git repository whose history is written with `git fast-import`
(unsigned) or commit by commit with `git commit-tree -S` (`--sign KEY`: an ssh key, as
`gpg.format ssh` signs). Each commit appends one message to one of ROOMS rooms, written by one
of three people (Ada Kim, Bob Lee, Mallory: its `author=`), made by that person's vault (git
author and a `Vault-Machine:` trailer); one message in 1,000 claims to be Ada but is made by
Bob. vault.yml lists the people, with the key's public half as each one's key when signed (all
three share it: every signature verifies, and `ssh-keygen -Y find-principals` names the first,
Ada, so vault marks the others' messages "signed by Ada Kim's key"; the cost measured is the
check's, a signature per commit). Seeded: the same arguments give the same files.
"""

import argparse
import os
import random
import subprocess

PEOPLE = [("Ada Kim", "ada@example.com", "ada"), ("Bob Lee", "bob@example.com", "bob"), ("Mallory", "mal@example.com", "mal")]
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def message_id(rng):
    return "m-" + "".join(rng.choice(CROCKFORD) for _ in range(12))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--commits", type=int, default=2000)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--sign", default=None)
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out)
    run = lambda *a, **k: subprocess.run(list(a), cwd=args.out, check=True, **k)
    run("git", "init", "--quiet", "-b", "main")
    people = "people:\n"
    for name, email, _ in PEOPLE:
        people += f"  - name: {name}\n    email: {email}\n"
        if args.sign:
            with open(args.sign + ".pub") as f:
                people += f"    key: {f.read().strip()}\n"
    config = ("format: 1\nlocale: en_US\ntime_zone: Asia/Tokyo\n" + people).encode()
    rooms = {}
    for r in range(args.rooms):
        rooms[f"rooms/room-{r:04d}.md"] = f"---\ntitle: Room {r}\ncreated: 2026-01-01T09:00:00+09:00\n---\n".encode()
    when = 1767225600
    if not args.sign:
        stream = []
        def blob(data):
            return b"data %d\n%s\n" % (len(data), data)
    parent = None
    for n in range(args.commits):
        path = f"rooms/room-{n % args.rooms:04d}.md"
        name, email, machine = PEOPLE[n % 3]
        claim = name
        if n % 1000 == 999:
            name, email, machine, claim = "Bob Lee", "bob@example.com", "bob", "Ada Kim"
        stamp = f"2026-01-{1 + n // 3000 % 28:02d}T{9 + n // 200 % 12:02d}:{n // 10 % 60:02d}:00+09:00"
        rooms[path] += (
            f"\n## 🧑 user · {claim} <!-- {stamp} {message_id(rng)} author={claim.replace(' ', '%20')} -->\n\n"
            f"message {n} from {claim}\n").encode()
        when += 30
        text = f"say: {path}\n\nVault-Machine: {machine}\n"
        if not args.sign:
            files = b""
            if n == 0:
                files += b"M 100644 inline vault.yml\n" + blob(config)
                files += b"M 100644 inline .gitignore\n" + blob(b".vault/\n")
                for p in sorted(rooms):
                    files += b"M 100644 inline " + p.encode() + b"\n" + blob(rooms[p])
            else:
                files += b"M 100644 inline " + path.encode() + b"\n" + blob(rooms[path])
            stream.append(
                b"commit refs/heads/main\n"
                + f"author {name} <{email}> {when} +0900\ncommitter {name} <{email}> {when} +0900\n".encode()
                + blob(text.encode())
                + files)
            continue
        # Signed: one tree and one signed commit at a time.
        env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name,
                   GIT_COMMITTER_EMAIL=email, GIT_AUTHOR_DATE=f"{when} +0900", GIT_COMMITTER_DATE=f"{when} +0900")
        if n == 0:
            with open(os.path.join(args.out, "vault.yml"), "wb") as f:
                f.write(config)
            with open(os.path.join(args.out, ".gitignore"), "w") as f:
                f.write(".vault/\n")
            os.makedirs(os.path.join(args.out, "rooms"))
            for p in rooms:
                with open(os.path.join(args.out, p), "wb") as f:
                    f.write(rooms[p])
            run("git", "add", "-A")
        else:
            with open(os.path.join(args.out, path), "wb") as f:
                f.write(rooms[path])
            run("git", "add", path)
        tree = subprocess.run(["git", "write-tree"], cwd=args.out, check=True, capture_output=True, text=True).stdout.strip()
        command = ["git", "-c", "gpg.format=ssh", "-c", "user.signingkey=" + args.sign + ".pub", "commit-tree", "-S", tree, "-m", text]
        if parent:
            command[command.index("commit-tree") + 1:command.index("commit-tree") + 1] = ["-p", parent]
            command = [c for c in command]
        parent = subprocess.run(command, cwd=args.out, check=True, capture_output=True, text=True, env=env).stdout.strip()
    if not args.sign:
        subprocess.run(["git", "fast-import", "--quiet"], cwd=args.out, check=True, input=b"".join(stream))
    else:
        run("git", "update-ref", "refs/heads/main", parent)
    run("git", "checkout", "--quiet", "-f", "main")


if __name__ == "__main__":
    main()
