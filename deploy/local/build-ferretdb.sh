#!/usr/bin/env bash
# Builds deploy/local/bin/ferretdb-local from the Go module proxy (skipped when up to date).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/bin/ferretdb-local"
if [[ -x "$out" && "$out" -nt "$here/ferretdb/main.go" && "$out" -nt "$here/ferretdb/go.sum" ]]; then
  exit 0
fi
command -v go >/dev/null || { echo "ferretdb-local needs Go (https://go.dev) on PATH" >&2; exit 1; }
source "$here/steps.sh"
mkdir -p "$here/bin"
version="$(grep 'FerretDB/FerretDB ' "$here/ferretdb/go.mod" | awk '{print $NF}')"
(cd "$here/ferretdb" && step "building ferretdb-local (FerretDB $version)" "a minute or two" go build -trimpath -o "$out" .)
# go build leaves an unchanged binary untouched; its time says it is up to date with the sources.
touch "$out"
