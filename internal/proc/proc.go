// Package proc runs the local emulators' processes: each in its own process
// group that dies with its parent, on a free loopback port, ready once its
// endpoint answers. internal/ddblocal and internal/moto share it.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FreePort is a TCP port free on every address at the time of the call,
// taken below the kernel's ephemeral range (32768 and up on Linux): a port
// from that range can be taken, between this call and the server's bind,
// by any outgoing connection on the machine, and a test binary makes
// thousands. Another process may still take it first: starters that see
// ErrPortTaken start again on another port.
func FreePort() (int, error) {
	for range 100 {
		port := 20000 + rand.IntN(12000)
		l, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
		if err == nil {
			l.Close()
			return port, nil
		}
	}
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// OnFreePort starts a server with start on a free port (FreePort), and
// on another one when the first was taken before the server bound it
// (start's error is ErrPortTaken), at most five times.
func OnFreePort[T any](start func(port int) (T, error)) (T, error) {
	for try := 1; ; try++ {
		port, err := FreePort()
		if err != nil {
			var zero T
			return zero, err
		}
		s, err := start(port)
		if errors.Is(err, ErrPortTaken) && try < 5 {
			continue
		}
		return s, err
	}
}

// ErrPortTaken is wrapped by WaitReady's error when the process's output
// says its port was taken before it could bind it.
var ErrPortTaken = errors.New("its port was taken")

// Output collects the start of a process's output (its first 64 KiB,
// where a failed start shows), safe to read while it writes.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

const outputKept = 64 << 10

func (o *Output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if room := outputKept - o.buf.Len(); room > 0 {
		o.buf.Write(b[:min(len(b), room)])
	}
	return len(b), nil
}

// String is the output so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// portTaken reports whether the output says the bind failed.
func (o *Output) portTaken() bool {
	return o != nil && strings.Contains(o.String(), "Address already in use")
}

// Process is a started child process.
type Process struct {
	cmd    *exec.Cmd
	exited chan error
	out    *Output
}

// Start starts cmd in its own process group, killed when its parent dies.
// Its output, when it is an *Output, is watched for a taken port.
func Start(cmd *exec.Cmd) (*Process, error) {
	out, _ := cmd.Stdout.(*Output)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, exited: make(chan error, 1), out: out}
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
		if p.out.portTaken() {
			p.Kill()
			return ErrPortTaken
		}
		select {
		case err := <-p.exited:
			if p.out.portTaken() {
				return ErrPortTaken
			}
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
