#!/usr/bin/env bash
# Builds deploy/local/bin/ferretdb-local from the Go module proxy (skipped when up to date).
#
# One constant of FerretDB is changed at build time (in a copy of the module under .tools; nothing of FerretDB
# is kept in this repository): FerretDB 1.24's SQLite backend indexes `_id` as `_ferretdb_sjson->"_id"` but
# pushes `{_id: x}` filters down as `_ferretdb_sjson->'$._id' = ?`. SQLite uses an expression index
# only for the identical expression, so every find, update and delete by `_id` scanned its whole table
# and parsed every document's JSON (a replaceOne by _id among 1,000 documents of 60 KB: 145 ms; 2 ms
# with the index). The change makes the pushed-down filter the index's own expression; both select
# the same documents (a text label X is the path '$.X'). deploy/local/src/stores.test.ts reads
# the query plan through FerretDB's explain.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/bin/ferretdb-local"
self="${BASH_SOURCE[0]}"
if [[ -x "$out" && "$out" -nt "$here/ferretdb/main.go" && "$out" -nt "$here/ferretdb/go.sum" && "$out" -nt "$self" ]]; then
  exit 0
fi
command -v go >/dev/null || { echo "ferretdb-local needs Go (https://go.dev) on PATH" >&2; exit 1; }
source "$here/steps.sh"
mkdir -p "$here/bin"
version="$(grep 'FerretDB/FerretDB ' "$here/ferretdb/go.mod" | awk '{print $NF}')"

# A writable copy of the module with the one constant changed, built through a go.mod of its own that
# replaces the module by that copy (go build -overlay refuses files in the module cache).
build_dir="$(cd "$here/../.." && pwd)/.tools/ferretdb-build"
module_dir="$(cd "$here/ferretdb" && go mod download github.com/FerretDB/FerretDB && go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)"
rm -rf "$build_dir"
mkdir -p "$build_dir"
cp -r "$module_dir" "$build_dir/FerretDB"
chmod -R u+w "$build_dir/FerretDB"
metadata_go="$build_dir/FerretDB/internal/backends/sqlite/metadata/metadata.go"
pushed_down="IDColumn = DefaultColumn + \"->'\$._id'\""
indexed='IDColumn = DefaultColumn + `->"_id"`'
if ! grep -qF "$pushed_down" "$metadata_go"; then
  echo "build-ferretdb: FerretDB $version no longer defines $pushed_down in metadata.go;" >&2
  echo "build-ferretdb: check whether its _id pushdown now uses its _id index, then update this script" >&2
  exit 1
fi
awk -v from="$pushed_down" -v to="$indexed" '{ if (index($0, from)) sub(/IDColumn = .*/, to); print }' \
  "$metadata_go" >"$metadata_go.new"
mv "$metadata_go.new" "$metadata_go"
grep -qF "$indexed" "$metadata_go" || { echo "build-ferretdb: metadata.go was not changed" >&2; exit 1; }
cp "$here/ferretdb/go.mod" "$build_dir/go.mod"
cp "$here/ferretdb/go.sum" "$build_dir/go.sum"
echo "replace github.com/FerretDB/FerretDB => $build_dir/FerretDB" >>"$build_dir/go.mod"

(cd "$here/ferretdb" && step "building ferretdb-local (FerretDB $version, _id look-ups on its _id index)" "a minute or two" \
  go build -trimpath -modfile "$build_dir/go.mod" -o "$out" .)
# go build leaves an unchanged binary untouched; its time says it is up to date with the sources.
touch "$out"
