#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite.
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
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
