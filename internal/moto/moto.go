// Package moto starts and stops a local moto_server, the emulator that
// serves DynamoDB and KMS to `make run` and to the integration tests.
package moto

import (
	"context"
	_ "embed"
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

// Server is a running moto_server on loopback.
type Server struct {
	// URL is the endpoint to give the SDK (AWS_ENDPOINT_URL).
	URL string
	p   *proc.Process
	dir string // holds sitecustomize.py
}

// sitecustomize fixes moto's TransactWriteItems copying the whole table
// once per action instead of once per transaction (a transaction of 100
// actions on a table of 5,000 items took 6 s instead of 60 ms); see the
// file. Python loads it from PYTHONPATH at start; if it cannot patch, moto
// runs as it is.
//
//go:embed sitecustomize.py
var sitecustomize []byte

// Find returns the path of moto_server: on PATH, else in the pyenv shims of
// home. It fails loudly, never silently: tests must not skip without it.
func Find(home string) (string, error) {
	if p, err := exec.LookPath("moto_server"); err == nil {
		return p, nil
	}
	shim := filepath.Join(home, ".pyenv", "shims", "moto_server")
	if fi, err := os.Stat(shim); err == nil && !fi.IsDir() {
		return shim, nil
	}
	return "", errors.New("moto: moto_server not found on PATH nor in ~/.pyenv/shims; install moto[server] 5.x (the emulator the tests and `make run` need)")
}

// Start runs moto_server on a free loopback port and waits until it answers.
// The server dies with its process group when Stop is called.
func Start(ctx context.Context, bin string) (*Server, error) {
	return proc.OnFreePort(func(port int) (*Server, error) { return startOn(ctx, bin, port) })
}

func startOn(ctx context.Context, bin string, port int) (*Server, error) {
	dir, err := os.MkdirTemp("", "moto-site-")
	if err != nil {
		return nil, fmt.Errorf("moto: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sitecustomize.py"), sitecustomize, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("moto: %w", err)
	}
	pythonPath := dir
	if p := os.Getenv("PYTHONPATH"); p != "" {
		pythonPath += string(os.PathListSeparator) + p
	}
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+pythonPath)
	out := &proc.Output{}
	cmd.Stdout, cmd.Stderr = out, out
	p, err := proc.Start(cmd)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("moto: start %s: %w", bin, err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), p: p, dir: dir}
	if err := p.WaitReady(ctx, s.URL+"/moto-api/", 2*time.Minute); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("moto: %s: %w\n%s", bin, err, strings.TrimSpace(out.String()))
	}
	return s, nil
}

// Stop kills the server and its children.
func (s *Server) Stop() {
	if s == nil {
		return
	}
	s.p.Kill()
	os.RemoveAll(s.dir)
}

// PID is the process id of the server, to read its memory.
func (s *Server) PID() int { return s.p.PID() }
