# Shared by scripts/quickstart.sh and scripts/test.sh: find Swift, install missing apt packages.
set -euo pipefail

# Debian packages vault needs to build and test (zsh and fish: the completion tests run the real shells;
# vim and nano: the terminal editor tests type into the real editors; tmux: the `vault ui` tests
# drive the app on a real terminal).
VAULT_APT_PACKAGES=(zlib1g-dev libgit2-dev libcurl4-openssl-dev libssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libdeflate-dev pkg-config git python3 openssh-server openssh-client libsqlite3-dev libedit-dev zsh fish vim nano tmux)

find_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        if [ -x /opt/swift/usr/bin/swift ]; then
            export PATH="/opt/swift/usr/bin:$PATH"
        else
            echo "error: Swift 6.3 is not on PATH (nor at /opt/swift). Install it from swift.org first." >&2
            exit 1
        fi
    fi
}

install_missing_packages() {
    local missing=()
    for p in "${VAULT_APT_PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing: ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Tools from the Python package index the tests run: llm makes the real logs.db that
# VaultImportTests reads (LLMReaderTests fails, saying so, when it is missing); jrnl writes the
# encrypted and folder journals JrnlRealToolTests reads (skipped, saying so, without it).
VAULT_PIP_PACKAGES=(llm jrnl)
# Python modules the tests import: mcp is the official MCP SDK, the client VaultMCPTests drives
# `vault mcp` with (Tests/Fixtures/mcp_client.py).
VAULT_PIP_MODULES=(mcp)

install_missing_python_tools() {
    local missing=()
    for p in "${VAULT_PIP_PACKAGES[@]}"; do
        command -v "$p" >/dev/null 2>&1 || [ -x "$HOME/.local/bin/$p" ] || missing+=("$p")
    done
    for m in "${VAULT_PIP_MODULES[@]}"; do
        python3 -c "import $m" >/dev/null 2>&1 || missing+=("$m")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing from PyPI: ${missing[*]}"
    if ! python3 -m pip --version >/dev/null 2>&1; then
        local sudo=()
        [ "$(id -u)" -ne 0 ] && sudo=(sudo)
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq python3-pip >/dev/null
    fi
    # A virtual environment or pyenv's Python takes it as it is; Debian's own Python wants
    # --user and refuses even that without --break-system-packages (PEP 668).
    export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1
    python3 -m pip install -q "${missing[@]}" 2>/dev/null \
        || python3 -m pip install -q --user "${missing[@]}" 2>/dev/null \
        || python3 -m pip install -q --user --break-system-packages "${missing[@]}"
    command -v pyenv >/dev/null 2>&1 && pyenv rehash || true
}
