package proc

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"
)

// TestWaitReadyPortTaken: a server that says its port was taken and stays
// up (as DynamoDB Local's JVM does, its other threads alive) is given up
// at once with ErrPortTaken, so that its starter starts again on another
// port, instead of being waited for a minute.
func TestWaitReadyPortTaken(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if port >= 32768 {
		t.Errorf("port %d is in the ephemeral range", port)
	}
	out := &Output{}
	cmd := exec.Command("sh", "-c", "echo 'java.net.BindException: Address already in use'; sleep 60")
	cmd.Stdout, cmd.Stderr = out, out
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	start := time.Now()
	err = p.WaitReady(context.Background(), "http://127.0.0.1:9/", 30*time.Second)
	if !errors.Is(err, ErrPortTaken) {
		t.Fatalf("WaitReady = %v, want ErrPortTaken", err)
	}
	t.Logf("given up after %v", time.Since(start).Round(time.Millisecond))
}

// TestOutputKeepsItsStart: the output keeps its first 64 KiB and takes
// every write whole, so a chatty server never blocks on it.
func TestOutputKeepsItsStart(t *testing.T) {
	o := &Output{}
	chunk := make([]byte, 1000)
	for range 100 {
		if n, err := o.Write(chunk); n != len(chunk) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if n := len(o.String()); n != outputKept {
		t.Fatalf("kept %d bytes, want %d", n, outputKept)
	}
}

// TestOnFreePortStartsAgain: a start whose port was taken is made again on
// another port, at most five times in all; any other failure is final.
func TestOnFreePortStartsAgain(t *testing.T) {
	var ports []int
	got, err := OnFreePort(func(port int) (int, error) {
		ports = append(ports, port)
		if len(ports) < 3 {
			return 0, ErrPortTaken
		}
		return port, nil
	})
	if err != nil || len(ports) != 3 || got != ports[2] {
		t.Fatalf("OnFreePort = %d, %v after starts on %v; want the third start's port", got, err, ports)
	}
	calls := 0
	if _, err := OnFreePort(func(int) (int, error) { calls++; return 0, ErrPortTaken }); !errors.Is(err, ErrPortTaken) || calls != 5 {
		t.Errorf("always taken: %v after %d starts, want ErrPortTaken after 5", err, calls)
	}
	calls = 0
	other := errors.New("no java")
	if _, err := OnFreePort(func(int) (int, error) { calls++; return 0, other }); err != other || calls != 1 {
		t.Errorf("another failure: %v after %d starts, want it at once", err, calls)
	}
}
