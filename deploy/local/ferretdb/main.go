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
	"runtime/debug"
	"slices"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27117", "TCP address to listen on")
	dataDir := flag.String("data", "./.local/ferretdb", "directory for the SQLite databases")
	flag.Parse()
	tuneCollector(os.Getenv)

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
		Logger:    slog.New(lazyAttrs{next: slog.Default().Handler()}),
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

// The collector's settings unless GOGC or GOMEMLIMIT say otherwise. Go's own (GOGC=100, no limit) collects each
// time the heap doubles, and every read decodes whole stored documents into short-lived values: on the benchmark's
// history stores, a listing of one event's buckets spent about a fifth of its CPU in the collector and in faulting in
// the memory it had just returned, and at 400 the same listing took a fifth to a half less CPU. The heap then grows
// to five times what survives before a collection, and the soft limit makes the collector work harder before the
// process passes it (docs/performance.md "FerretDB's reads, decoded with less").
const (
	collectorPercent = 400
	collectorLimit   = 256 << 20
)

// tuneCollector applies collectorPercent and collectorLimit where the environment sets neither of their variables.
func tuneCollector(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(collectorPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(collectorLimit)
	}
}

// lazyAttrs keeps the attributes a logger is given by With unformatted until one of its records is handled.
// FerretDB 1.24's SQL layer calls Logger.With(slog.Any("args", args)) before and after every statement, for a debug
// line that is off; slog's own handlers format the attributes as soon as With is called, so every insert and update
// formatted its whole document as text twice, for nothing: 14 % of the shared FerretDB's CPU over a benchmark cycle.
type lazyAttrs struct {
	next  slog.Handler
	attrs []slog.Attr
}

func (h lazyAttrs) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h lazyAttrs) Handle(ctx context.Context, record slog.Record) error {
	return h.next.WithAttrs(h.attrs).Handle(ctx, record)
}

func (h lazyAttrs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return lazyAttrs{next: h.next, attrs: append(slices.Clip(h.attrs), attrs...)}
}

func (h lazyAttrs) WithGroup(name string) slog.Handler {
	return lazyAttrs{next: h.next.WithAttrs(h.attrs).WithGroup(name)}
}
