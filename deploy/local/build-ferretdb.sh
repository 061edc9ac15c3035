#!/usr/bin/env bash
# Builds deploy/local/bin/ferretdb-local from the Go module proxy (skipped when up to date).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/bin/ferretdb-local"
if [[ -x "$out" && "$out" -nt "$here/ferretdb/main.go" && "$out" -nt "$here/ferretdb/go.sum" ]]; then
  exit 0
fi
command -v go >/dev/null || { echo "ferretdb-local needs Go (https://go.dev) on PATH" >&2; exit 1; }
echo "prepare: building ferretdb-local (FerretDB $(grep 'FerretDB/FerretDB ' "$here/ferretdb/go.mod" | awk '{print $NF}'), first build takes a minute or two)..."
mkdir -p "$here/bin"
(cd "$here/ferretdb" && go build -trimpath -o "$out" .)
