// Package ddblocal starts and stops DynamoDB Local, AWS's own DynamoDB
// emulator, for `make run`, `make load`, the benchmarks and the tests. It
// runs in memory with a bounded heap. Its licence forbids redistribution:
// `make emulators` installs it under .cache/ (git-ignored) and this package
// only finds it there, failing loudly when it is missing.
package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"surveyservice/internal/proc"
)

// Version is the DynamoDB Local that `make emulators` installs.
const Version = "1.25.1"

// DefaultHeap bounds the Java heap. The tables live in SQLite's memory
// outside it; 200,000 items of this service take about 150 MB there.
const DefaultHeap = "768m"

// InstallDir is where `make emulators` puts DynamoDB Local, relative to the
// module root.
var InstallDir = filepath.Join(".cache", "dynamodb-local-"+Version)

// Server is a running DynamoDB Local on loopback.
type Server struct {
	// URL is the endpoint to give the SDK (AWS_ENDPOINT_URL_DYNAMODB and
	// AWS_ENDPOINT_URL_DYNAMODB_STREAMS).
	URL string
	p   *proc.Process
	log *proc.Output
}

// Install is where DynamoDB Local and Java were found.
type Install struct {
	Java string // the java binary
	Dir  string // holds DynamoDBLocal.jar and DynamoDBLocal_lib/
}

// Find locates Java and the installed DynamoDB Local: in dir when it is not
// empty (DYNAMODB_LOCAL_DIR), else in InstallDir under the module root found
// from the working directory upwards. Either missing is an error that says
// how to install it: the tests fail, never skip, without it.
func Find(dir string) (Install, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return Install{}, errors.New("ddblocal: java not found on PATH: DynamoDB Local needs Java 17 or later; run `make emulators` (it installs openjdk-17-jre-headless with apt-get when missing)")
	}
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			return Install{}, err
		}
		dir = filepath.Join(root, InstallDir)
	}
	if _, err := os.Stat(filepath.Join(dir, "DynamoDBLocal.jar")); err != nil {
		return Install{}, fmt.Errorf("ddblocal: DynamoDB Local %s is not installed (no %s): run `make emulators`", Version, filepath.Join(dir, "DynamoDBLocal.jar"))
	}
	return Install{Java: java, Dir: dir}, nil
}

// moduleRoot is the nearest directory upwards holding go.mod: a test runs
// in its package's directory, `make run` at the root.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("ddblocal: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("ddblocal: no go.mod above the working directory; set DYNAMODB_LOCAL_DIR to DynamoDB Local's directory")
		}
		dir = parent
	}
}

// Start runs DynamoDB Local in memory on a free loopback port, with the
// heap bounded by heap (DefaultHeap when empty), and waits until it answers.
// It serves every access key and region as one database (-sharedDb), as
// `make run` needs: any tool of the user's reaches its tables. The process
// dies with its parent (Pdeathsig) or when Stop is called.
func Start(ctx context.Context, in Install, heap string) (*Server, error) {
	return start(ctx, in, heap, true)
}

// StartPerKey is Start with a database of its own for each access key, as
// the tests use it: each top-level test signs with a key of its own.
//
// One database for everything slows every write of a table with a stream
// by the stream records of the tables made before it: DynamoDB Local finds
// a shard's first record with a query that reads through the other
// tables' records. Measured (docs/local.md): in a table made after one of
// 100,000 streamed writes, 10,000 writes took over 45 s, against 4 s in a
// database of its own. A
// test binary's later tests met a slower emulator with each test before
// them, past the SDK's minute a request. Each database also has its own
// SQLite thread, so two tests' writes no longer queue behind one.
func StartPerKey(ctx context.Context, in Install, heap string) (*Server, error) {
	return start(ctx, in, heap, false)
}

// StartIn is Start with the database kept in the directory dbPath
// (DynamoDB Local's -dbPath: one SQLite file, shared-local-instance.db), so
// that a later run finds every table and item again. `make run` keeps its
// data so (LOCAL_DATA_DIR).
func StartIn(ctx context.Context, in Install, heap, dbPath string) (*Server, error) {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return nil, fmt.Errorf("ddblocal: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("ddblocal: %w", err)
	}
	return startWith(ctx, in, heap, true, abs)
}

func start(ctx context.Context, in Install, heap string, shared bool) (*Server, error) {
	return startWith(ctx, in, heap, shared, "")
}

func startWith(ctx context.Context, in Install, heap string, shared bool, dbPath string) (*Server, error) {
	if heap == "" {
		heap = DefaultHeap
	}
	return proc.OnFreePort(func(port int) (*Server, error) { return startOn(ctx, in, heap, shared, dbPath, port) })
}

func startOn(ctx context.Context, in Install, heap string, shared bool, dbPath string, port int) (*Server, error) {
	storage := []string{"-inMemory"}
	if dbPath != "" {
		storage = []string{"-dbPath", dbPath}
	}
	cmd := exec.Command(in.Java, append([]string{
		"-Xmx" + heap, "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Djava.library.path=" + filepath.Join(in.Dir, "DynamoDBLocal_lib"),
		"-jar", filepath.Join(in.Dir, "DynamoDBLocal.jar")},
		append(storage, "-port", strconv.Itoa(port))...)...)
	if shared {
		cmd.Args = append(cmd.Args, "-sharedDb")
	}
	cmd.Dir = in.Dir
	log := &proc.Output{}
	cmd.Stdout, cmd.Stderr = log, log
	p, err := proc.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("ddblocal: start %s: %w", in.Java, err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), p: p, log: log}
	if err := p.WaitReady(ctx, s.URL, readyWithin); err != nil {
		return nil, fmt.Errorf("ddblocal: DynamoDB Local: %w\n%s", err, strings.TrimSpace(log.String()))
	}
	return s, nil
}

// Stop kills the server.
func (s *Server) Stop() {
	if s != nil {
		s.p.Kill()
	}
}

// RSS is the resident memory of the server's process, in bytes.
func (s *Server) RSS() (int64, error) {
	return RSS(s.p.PID())
}

// RSS is the resident memory of a process, in bytes, from /proc.
func RSS(pid int) (int64, error) { return status(pid, "VmRSS:") }

// PeakRSS is the high-water mark of a process's resident memory, in bytes.
func PeakRSS(pid int) (int64, error) { return status(pid, "VmHWM:") }

func status(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("ddblocal: rss: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("ddblocal: rss: %q: %w", line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("ddblocal: rss: no %s for process %d", field, pid)
}

// PID is the server's process id.
func (s *Server) PID() int { return s.p.PID() }

// readyWithin bounds DynamoDB Local's start. It starts in seconds alone;
// on a 2-core machine at load 30-40 (make test beside other work) a run
// with its own database file (make run's -dbPath) took over a minute to
// answer, so the bound is generous: a process that exits is seen at once.
const readyWithin = 3 * time.Minute
