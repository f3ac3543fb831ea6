package testenv

import (
	"os"
	"strconv"
	"testing"
)

// BenchSize is the size a benchmark seeds: def, or the positive integer in
// the environment variable name. `make bench` seeds the sizes docs/scale.md
// reports (the defaults); `make test` runs every benchmark once at smaller
// sizes (the Makefile's BENCH_SMALL), so that a benchmark's own checks run
// in every test run without the minutes its full seed takes. A value that
// is set but not a positive integer fails the benchmark.
func BenchSize(b *testing.B, name string, def int) int {
	b.Helper()
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
