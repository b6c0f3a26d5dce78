#!/usr/bin/env bash
# Installs what is missing, builds vault, and runs a chat turn on a copy of sample-vault/.
# The copy lives in a temporary folder: nothing is written into this repository.
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
install_missing_packages
swift build -c release --product vault
vault=".build/release/vault"

demo="$(mktemp -d "${TMPDIR:-/tmp}/vault-demo-XXXXXX")"
cp -R sample-vault/. "$demo/"
echo
echo "== A copy of sample-vault is in $demo"
echo "== vault chat 부산 \"…\"  (the built-in offline provider answers; no network)"
"$vault" chat --vault "$demo" 부산 "둘째 날 저녁은 어디서 먹을까?"
echo
echo "== vault rooms"
"$vault" rooms --vault "$demo"
echo
echo "== vault check"
"$vault" check "$demo"
echo
echo "Try: export VAULT_DIR=$demo; $vault show 부산; $vault diary list"
