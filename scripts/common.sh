# Shared by scripts/quickstart.sh and scripts/test.sh: find Swift, install missing apt packages.
set -euo pipefail

# Debian packages vault needs to build and test (zsh and fish: the completion tests run the real shells).
VAULT_APT_PACKAGES=(zlib1g-dev libgit2-dev libcurl4-openssl-dev libssl-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libdeflate-dev pkg-config git python3 openssh-server openssh-client libsqlite3-dev libedit-dev zsh fish)

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
