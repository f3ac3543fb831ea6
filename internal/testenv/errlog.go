package testenv

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
)

// The handlers' log is discarded in a test run that is not verbose (run),
// but its errors are what explains an unexpected 500 or 503 under load:
// the last errorLogSize records at level Error are kept in memory, and
// KeepErrorLog prints them when a test fails.
const errorLogSize = 200

var errorLog struct {
	sync.Mutex
	lines [][]byte
	total int // lines written in all
}

// errorRing is a slog.Handler keeping Error records as JSON lines.
type errorRing struct{ slog.Handler }

func newErrorRing() slog.Handler {
	return errorRing{slog.NewJSONHandler(ringWriter{}, &slog.HandlerOptions{Level: slog.LevelError})}
}

func (h errorRing) WithAttrs(as []slog.Attr) slog.Handler { return errorRing{h.Handler.WithAttrs(as)} }
func (h errorRing) WithGroup(g string) slog.Handler       { return errorRing{h.Handler.WithGroup(g)} }
func (h errorRing) Enabled(_ context.Context, l slog.Level) bool {
	return l >= slog.LevelError
}

// ringWriter appends each line to errorLog, dropping the oldest.
type ringWriter struct{}

func (ringWriter) Write(p []byte) (int, error) {
	errorLog.Lock()
	defer errorLog.Unlock()
	if len(errorLog.lines) == errorLogSize {
		errorLog.lines = errorLog.lines[1:]
	}
	errorLog.lines = append(errorLog.lines, bytes.Clone(p))
	errorLog.total++
	return len(p), nil
}

// KeepErrorLog prints, when tb fails, the handlers' Error records logged
// since it was called (of every test running then: they name their
// request ids and routes).
func KeepErrorLog(tb testing.TB) {
	tb.Helper()
	errorLog.Lock()
	from := errorLog.total
	errorLog.Unlock()
	tb.Cleanup(func() {
		if !tb.Failed() {
			return
		}
		errorLog.Lock()
		defer errorLog.Unlock()
		lines := errorLog.lines[max(0, len(errorLog.lines)-(errorLog.total-from)):]
		for _, l := range lines {
			tb.Logf("handler error: %s", bytes.TrimSpace(l))
		}
	})
}
