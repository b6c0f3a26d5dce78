#!/usr/bin/env bash
# Installs what is missing and runs the whole test suite.
source "$(dirname "$0")/common.sh"
cd "$(dirname "$0")/.."
find_swift
install_missing_packages
swift build --build-tests
swift test --skip-build
