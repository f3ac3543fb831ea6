package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// openLog points the JSON log (every request, the pollers' progress) at
// LOG_FILE, so that the banner stays the last thing on the terminal: `make
// run` sets .cache/make-run.log. Warnings and errors also reach stderr.
// LOG_FILE unset or "-" logs everything to stderr, as the Lambdas do. It
// answers the file's name ("" for stderr) and a func that closes it.
func openLog(name string, stderr io.Writer) (string, func(), error) {
	if name == "" || name == "-" {
		slog.SetDefault(slog.New(slog.NewJSONHandler(stderr, nil)))
		return "", func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return "", nil, fmt.Errorf("LOG_FILE: %w", err)
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return "", nil, fmt.Errorf("LOG_FILE: %w", err)
	}
	slog.SetDefault(slog.New(loudToo{all: slog.NewJSONHandler(f, nil), loud: slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})}))
	return name, func() { _ = f.Close() }, nil
}

// loudToo writes every record to all, and warnings and errors to loud too.
type loudToo struct{ all, loud slog.Handler }

func (h loudToo) Enabled(ctx context.Context, l slog.Level) bool {
	return h.all.Enabled(ctx, l) || h.loud.Enabled(ctx, l)
}

func (h loudToo) Handle(ctx context.Context, r slog.Record) error {
	err := h.all.Handle(ctx, r)
	if h.loud.Enabled(ctx, r.Level) {
		if e := h.loud.Handle(ctx, r.Clone()); err == nil {
			err = e
		}
	}
	return err
}

func (h loudToo) WithAttrs(as []slog.Attr) slog.Handler {
	return loudToo{all: h.all.WithAttrs(as), loud: h.loud.WithAttrs(as)}
}

func (h loudToo) WithGroup(name string) slog.Handler {
	return loudToo{all: h.all.WithGroup(name), loud: h.loud.WithGroup(name)}
}
