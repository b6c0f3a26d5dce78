#!/usr/bin/env bash
# Installs what is missing, builds vault, and runs a chat turn on a copy of sample-vault/.
# The copy lives in a temporary folder: nothing is written into this repository.
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
install_missing_packages
# The Swift runtime and Foundation are linked in (faster start-up). Foundation's static
# archive makes the linker warn that it uses mktemp(3); that is Foundation's code, not
# vault's, so that one line is left out. Any other output, and any failure, shows.
swift build -c release --static-swift-stdlib --product vault 2>&1 \
    | { grep -v "warning: the use of .mktemp' is dangerous" || true; }
vault=".build/release/vault"

demo="$(mktemp -d "${TMPDIR:-/tmp}/vault-demo-XXXXXX")"
cp -R sample-vault/. "$demo/"
echo
echo "== A copy of sample-vault is in $demo"
echo "== vault chat 독서 \"…\"  (the built-in offline provider answers; no network)"
"$vault" chat --vault "$demo" 독서 "발제문 첫 문단을 같이 다듬어 줄래?"
echo
echo "== vault rooms"
"$vault" rooms --vault "$demo"
echo
echo "== vault check"
"$vault" check "$demo"
echo
echo "Try: export VAULT_DIR=$demo; $vault show 부산; $vault diary list"
