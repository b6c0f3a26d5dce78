#!/usr/bin/env bash
# Installs what is missing, builds vault, and runs a chat turn on a copy of sample-vault/.
# The copy lives in a temporary folder: nothing is written into this repository.
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
install_missing_packages
swift build -c release --static-swift-stdlib --product vault
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
