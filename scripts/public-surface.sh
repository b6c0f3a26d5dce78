#!/usr/bin/env bash
# The types the libraries below VaultKit declare public: what VaultKit's public API names, and
# nothing else (everything else they share is `package`). Prints one line per target; with
# --check, fails when Sources/VaultKit/README.md's list (between the public-surface markers)
# is not what the sources declare.
set -euo pipefail
cd "$(dirname "$0")/.."
surface() {
    for target in VaultCore VaultGit VaultSearch VaultChat VaultImport VaultExport VaultMCP VaultCLI; do
        names=$(grep -rhoE '^\s*(@[A-Za-z.()]+ )*([a-z]+ )*public ([a-z]+ )*(struct|class|enum|protocol|typealias|actor) [A-Za-z_]+' \
            "Sources/$target" --include='*.swift' | awk '{print $NF}' | sort -u | sed 's/.*/`&`/' | paste -sd ' ' - || true)
        echo "- $target: ${names:-none}"
    done
}
if [ "${1:-}" = "--check" ]; then
    listed=$(sed -n '/<!-- public-surface:begin -->/,/<!-- public-surface:end -->/p' Sources/VaultKit/README.md | grep '^- ' || true)
    if [ "$listed" != "$(surface)" ]; then
        echo "error: the public types below VaultKit are not the ones Sources/VaultKit/README.md lists" >&2
        echo "  (make a new type \`package\` unless VaultKit's public API names it; then scripts/public-surface.sh > the list):" >&2
        diff <(echo "$listed") <(surface) >&2 || true
        exit 1
    fi
else
    surface
fi
