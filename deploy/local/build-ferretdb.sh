#!/usr/bin/env bash
# Builds deploy/local/bin/ferretdb-local from the Go module proxy (skipped when up to date).
#
# Five lines of FerretDB are changed at build time (the fourth and fifth also add a small file beside
# its own), in a temporary copy of the module (nothing else of FerretDB is kept in this repository),
# so its SQLite backend finds documents by `_id` through its `_id` index instead of scanning the
# table and parsing every document (1, 2), a large update command does not hang (3), a query does
# not copy the metadata of every collection (4), and a stored binary is decoded in one pass (5):
# 1. FerretDB 1.24 indexes `_id` as `_ferretdb_sjson->"_id"` but pushes `{_id: x}` filters down as
#    `_ferretdb_sjson->'$._id' = ?`; SQLite uses an expression index only for the identical
#    expression, so every find, update and delete by `_id` scanned. The pushed-down filter now is the
#    index's own expression (a text label X is the path '$.X': the same documents match).
# 2. It pushes `_id` down only when it is the filter's one condition, so a conditional write such as
#    `{_id, v}` scanned. It now pushes the `_id` condition of any filter down: FerretDB's handlers
#    apply the whole filter to what the backend returns (a backend may apply a filter partially, its
#    backends.Collection contract says), and top-level conditions are a conjunction.
# 3. An update command closed each statement's query only when the whole command ended (a `defer`
#    inside its loop over statements), and an unfinished query holds one of the 100 SQLite
#    connections of a database: a command of more than ~99 statements that match a document (a
#    bulkWrite of replaceOne) waited forever for a connection, and with it every later query of that
#    database. Each statement's query is now closed as soon as the statement is done.
# 4. Every find, aggregate and explain asks the backend for its one collection's metadata
#    (ListCollections with a Name), and the SQLite backend answered it by copying and sorting the
#    metadata of every collection of the database, then searching that list for the name. With
#    history's per-event layout (one collection per event: ~1,600 in each tier at full scale) that
#    was most of a short query's cost. A named ListCollections now reads that one collection's
#    metadata from the registry (`listNamed`, added beside the backend's database.go): the same one
#    entry, or none.
# 5. A stored document is JSON, a binary value in it a string of base64, and FerretDB's sjson package
#    decoded each through an encoding/json Decoder, which scans the string byte by byte three times
#    before base64 decodes it. A history bucket holds its ticks as one binary, so that was a fifth
#    to a third of a bucket listing's CPU. `quotedBase64` (ferretdb/sjsonpatch/binary_quoted.go,
#    copied beside sjson's binary.go and tested against encoding/json in its own directory; FerretDB's
#    own tests of sjson run on the changed copy) now decodes a string base64 takes as it is, and leaves
#    any other value to the Decoder as before.
# Measured (1,000 documents of 60 KB): a replaceOne by _id 145 ms before, 2 ms after; in a per-event
# history collection of 168 buckets, a rewrite at {_id, v} 62 ms before, 4 ms after. (4) On a copy of
# the benchmark's live history store (1,641 collections), FerretDB's CPU per findOne by _id of a
# missing document: see docs/performance.md "FerretDB's find, one collection's metadata".
# deploy/local/src/stores.test.ts reads the query plans through FerretDB's explain and runs a
# bulkWrite of 250 replaceOne.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/bin/ferretdb-local"
self="${BASH_SOURCE[0]}"
# Up to date when the binary is newer than this script and than every file of ferretdb/ (its code, its tests, the
# file copied into FerretDB, go.mod and go.sum).
if [[ -x "$out" && "$out" -nt "$self" && -z "$(find "$here/ferretdb" -newer "$out" -print -quit)" ]]; then
  exit 0
fi
command -v go >/dev/null || { echo "ferretdb-local needs Go (https://go.dev) on PATH" >&2; exit 1; }
source "$here/steps.sh"
mkdir -p "$here/bin"
version="$(grep 'FerretDB/FerretDB ' "$here/ferretdb/go.mod" | awk '{print $NF}')"

# A writable copy of the module with those lines changed, built through a go.mod of its own that
# replaces the module by that copy (go build -overlay refuses files in the module cache).
build_dir="$(mktemp -d -t ferretdb-build-XXXXXX)"
trap 'rm -rf "$build_dir"' EXIT
module_dir="$(cd "$here/ferretdb" && go mod download github.com/FerretDB/FerretDB && go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)"
cp -r "$module_dir" "$build_dir/FerretDB"
chmod -R u+w "$build_dir/FerretDB"
# change FILE FROM TO COUNT: replaces the fixed text FROM by TO, which must occur COUNT times.
change() {
  local file="$build_dir/FerretDB/$1" from=$2 to=$3 count=$4
  if [[ "$(grep -cF -- "$from" "$file" || true)" != "$count" ]]; then
    echo "build-ferretdb: FerretDB $version no longer has $count x [$from] in $1;" >&2
    echo "build-ferretdb: check whether that FerretDB fixed what this script changes (see its header), then update it" >&2
    exit 1
  fi
  awk -v from="$from" -v to="$to" '{
    out = ""
    while ((i = index($0, from)) > 0) { out = out substr($0, 1, i - 1) to; $0 = substr($0, i + length(from)) }
    print out $0
  }' "$file" >"$file.new"
  mv "$file.new" "$file"
}
change internal/backends/sqlite/metadata/metadata.go "DefaultColumn + \"->'\$._id'\"" 'DefaultColumn + `->"_id"`' 1
change internal/backends/sqlite/collection.go "if params.Filter.Len() == 1 {" "if params.Filter.Len() >= 1 {" 2
change internal/handler/msg_update.go 'result, err := common.UpdateDocument(ctx, c, "update", iter, &u)' \
  'result, err := common.UpdateDocument(ctx, c, "update", iter, &u); res.Iter.Close()' 1
change internal/backends/sqlite/database.go \
  'func (db *database) ListCollections(ctx context.Context, params *backends.ListCollectionsParams) (*backends.ListCollectionsResult, error) {' \
  'func (db *database) ListCollections(ctx context.Context, params *backends.ListCollectionsParams) (*backends.ListCollectionsResult, error) { if params != nil && len(params.Name) > 0 { return db.listNamed(ctx, params.Name) }' 1
cat >"$build_dir/FerretDB/internal/backends/sqlite/database_named.go" <<'GO'
package sqlite

import (
	"context"

	"github.com/FerretDB/FerretDB/internal/backends"
)

// listNamed is ListCollections for one named collection (added by ferretdb-local's build): that collection's
// metadata from the registry, or an empty list when it does not exist, as the whole list searched by name gave.
func (db *database) listNamed(ctx context.Context, name string) (*backends.ListCollectionsResult, error) {
	c := db.r.CollectionGet(ctx, db.name, name)
	if c == nil {
		return &backends.ListCollectionsResult{Collections: []backends.CollectionInfo{}}, nil
	}
	return &backends.ListCollectionsResult{Collections: []backends.CollectionInfo{{
		Name:            c.Name,
		UUID:            c.Settings.UUID,
		CappedSize:      c.Settings.CappedSize,
		CappedDocuments: c.Settings.CappedDocuments,
	}}}, nil
}
GO
change internal/handler/sjson/binary.go \
  'func (bin *binaryType) UnmarshalJSONWithSchema(data []byte, sch *elem) error {' \
  'func (bin *binaryType) UnmarshalJSONWithSchema(data []byte, sch *elem) error { if b, ok := quotedBase64(data); ok && sch.Subtype != nil { bin.B, bin.Subtype = b, *sch.Subtype; return nil }' 1
cp "$here/ferretdb/sjsonpatch/binary_quoted.go" "$build_dir/FerretDB/internal/handler/sjson/binary_quoted.go"
cp "$here/ferretdb/go.mod" "$build_dir/go.mod"
cp "$here/ferretdb/go.sum" "$build_dir/go.sum"
echo "replace github.com/FerretDB/FerretDB => $build_dir/FerretDB" >>"$build_dir/go.mod"

(cd "$here/ferretdb" && step "testing ferretdb-local's own code" "a minute or two" go test -modfile "$build_dir/go.mod" ./...)
# FerretDB's own tests of the package the fifth change is in (its test helpers find the module's root by a .git).
mkdir -p "$build_dir/FerretDB/.git"
(cd "$build_dir/FerretDB" && step "testing FerretDB's sjson package with the fifth change" "a minute" go test ./internal/handler/sjson/)
(cd "$here/ferretdb" && step "building ferretdb-local (FerretDB $version, with the five changes above)" "a minute or two" \
  go build -trimpath -modfile "$build_dir/go.mod" -o "$out" .)
# go build leaves an unchanged binary untouched; its time says it is up to date with the sources.
touch "$out"
