// Package proc runs the local emulators' processes: each in its own process
// group that dies with its parent, on a free loopback port, ready once its
// endpoint answers. internal/ddblocal and internal/moto share it.
package proc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"syscall"
	"time"
)

// FreePort is a loopback TCP port free at the time of the call.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Process is a started child process.
type Process struct {
	cmd    *exec.Cmd
	exited chan error
}

// Start starts cmd in its own process group, killed when its parent dies.
func Start(cmd *exec.Cmd) (*Process, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	return p, nil
}

// ErrExited is wrapped by WaitReady's error when the process ended first.
var ErrExited = errors.New("exited before answering")

// WaitReady polls url until it answers (any status), the process exits, ctx
// ends or within passes. On failure it kills the process group.
func (p *Process) WaitReady(ctx context.Context, url string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case err := <-p.exited:
			return fmt.Errorf("%w: %v", ErrExited, err)
		case <-ctx.Done():
			p.Kill()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Kill()
			return fmt.Errorf("did not answer on %s within %s", url, within)
		}
	}
}

// Kill ends the process group: SIGTERM, then SIGKILL a moment later.
func (p *Process) Kill() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	time.Sleep(20 * time.Millisecond)
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// PID is the process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }
