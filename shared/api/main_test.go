package api_test

import (
	"flag"
	"io"
	"log/slog"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	flag.Parse()
	if !testing.Verbose() {
		slog.SetDefault(slog.New(slog.NewJSONHandler(io.Discard, nil)))
	}
	os.Exit(m.Run())
}
