package main

import (
	"bytes"
	"log/slog"
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

// counting is a handler that counts the attributes it is asked to take (and so to format).
type counting struct {
	slog.Handler
	taken *int
}

func (h counting) WithAttrs(attrs []slog.Attr) slog.Handler {
	*h.taken += len(attrs)
	return counting{h.Handler.WithAttrs(attrs), h.taken}
}

func TestLazyAttrsFormatsOnlyWhatIsLogged(t *testing.T) {
	var out bytes.Buffer
	taken := 0
	logger := slog.New(lazyAttrs{next: counting{slog.NewTextHandler(&out, nil), &taken}})

	// What FerretDB's SQL layer does around every statement, with its debug line off.
	logger.With(slog.Any("args", []any{"a whole document"})).Debug(">>> UPDATE")
	if taken != 0 || out.Len() != 0 {
		t.Fatalf("a debug line that is off had %d attributes formatted and wrote %q", taken, out.String())
	}

	logger.With("name", "listener").WithGroup("conn").With("id", 7).Info("Listening")
	line := out.String()
	for _, want := range []string{"name=listener", "conn.id=7", "msg=Listening"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}

func TestTuneCollectorSetsWhatTheEnvironmentLeaves(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	tuneCollector(func(string) string { return "" })
	if percent := debug.SetGCPercent(100); percent != collectorPercent {
		t.Errorf("GOGC unset: the collector at %d, not %d", percent, collectorPercent)
	}
	if limit := debug.SetMemoryLimit(math.MaxInt64); limit != collectorLimit {
		t.Errorf("GOMEMLIMIT unset: the limit at %d, not %d", limit, collectorLimit)
	}

	// Set by the environment (the runtime has read them already): left as they are.
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(64 << 20)
	tuneCollector(func(name string) string { return map[string]string{"GOGC": "150", "GOMEMLIMIT": "64MiB"}[name] })
	if percent := debug.SetGCPercent(100); percent != 150 {
		t.Errorf("GOGC=150: the collector at %d", percent)
	}
	if limit := debug.SetMemoryLimit(math.MaxInt64); limit != 64<<20 {
		t.Errorf("GOMEMLIMIT=64MiB: the limit at %d", limit)
	}
}
