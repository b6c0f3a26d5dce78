#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite.
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
# The project's root holds the project's own files only: a stray `git init --bare` there has
# committed a bare repository's skeleton (HEAD, config, hooks/, ...) more than once.
# (Listed from the folder, not git: .gitignore names the skeleton's files, so git would hide them.)
stray=$(ls -A | grep -vxE '\.git|\.build.*|Package\.resolved|\.ci|\.gitignore|Benchmarks|FORMAT\.md|Fuzz|Package\.swift|README\.md|RELIABILITY\.md|ARCHITECTURE\.md|Sources|Tests|docs|sample-vault|scripts' || true)
if [ -n "$stray" ]; then
    echo "error: files at the project's root that are not the project's: $(echo $stray)" >&2
    echo "  (remove them; a bare repository's skeleton there comes from a git init --bare run in the wrong folder)" >&2
    exit 1
fi
install_missing_packages
install_missing_python_tools
export PATH="$PATH:$HOME/.local/bin"
# libgit2's trampolines (Sources/CGit2Loader/trampolines.c) cover every git_* call in the sources.
python3 scripts/generate-git2-trampolines.py --check
# The commands CGit2Loader starts loading libgit2 for are VaultCommand.gitCommands.
python3 scripts/generate-git-commands.py --check
swift build --build-tests
# docs/vault.1 is what the command definitions give (run scripts/generate-manual.py after a help change).
python3 scripts/generate-manual.py --check
swift test --skip-build
