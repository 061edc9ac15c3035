// Command ferretdb-local is our local and CI MongoDB wire-protocol server: FerretDB v1
// embedded with its SQLite backend, listening on one loopback address.
//
// The plain cmd/ferretdb binary panics when installed with `go install` (its version
// files are generated at release time), so we embed the library package instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27117", "TCP address to listen on")
	dataDir := flag.String("data", "./.local/ferretdb", "directory for the SQLite databases")
	flag.Parse()

	dir, err := filepath.Abs(*dataDir)
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb-local: data directory %q: %v\n", *dataDir, err)
		os.Exit(1)
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "ferretdb-local: %v\n", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	slog.Info("ferretdb-local listening", "uri", f.MongoDBURI(), "data", dir)
	if err := f.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "ferretdb-local: %v\n", err)
		os.Exit(1)
	}
}
