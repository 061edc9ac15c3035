// Package sjson holds what ferretdb-local's build (deploy/local/build-ferretdb.sh) adds to FerretDB's own sjson
// package, the JSON in which its SQLite backend stores documents: binary_quoted.go is copied there as it is (this file
// and the tests are not), and tested here.
package sjson
