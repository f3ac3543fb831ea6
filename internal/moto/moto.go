// Package moto starts and stops a local moto_server, the emulator that
// serves DynamoDB and KMS to `make run` and to the integration tests.
package moto

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Server is a running moto_server on loopback.
type Server struct {
	// URL is the endpoint to give the SDK (AWS_ENDPOINT_URL).
	URL string
	cmd *exec.Cmd
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
	port, err := freePort()
	if err != nil {
		return nil, err
	}
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
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("moto: start %s: %w", bin, err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, dir: dir}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		select {
		case err := <-exited:
			os.RemoveAll(dir)
			return nil, fmt.Errorf("moto: %s exited before answering: %v", bin, err)
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("moto: %s did not answer on %s within 30s", bin, s.URL)
		}
	}
}

// Stop kills the server and its children.
func (s *Server) Stop() {
	if s == nil || s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	time.Sleep(20 * time.Millisecond)
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("moto: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// PID is the process id of the server, to read its memory.
func (s *Server) PID() int { return s.cmd.Process.Pid }
