// Command ddblocal runs a command beside one DynamoDB Local, which it
// starts first and stops when the command ends: `make test` runs
// `go test ./...` under it, so that every test binary shares one emulator
// (internal/testenv reads its URL from TESTENV_DYNAMODB_LOCAL) instead of
// starting Java once per binary. It prints the emulator's peak memory.
//
//	go run ./infra/ddblocal -- go test -count=1 ./...
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"surveyservice/internal/ddblocal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := run(ctx, os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "ddblocal:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(ctx context.Context, args []string) (int, error) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return 0, errors.New("usage: ddblocal -- command [args...]")
	}
	in, err := ddblocal.Find(os.Getenv("DYNAMODB_LOCAL_DIR"))
	if err != nil {
		return 0, err
	}
	srv, err := ddblocal.Start(ctx, in, os.Getenv("DYNAMODB_LOCAL_HEAP"))
	if err != nil {
		return 0, err
	}
	defer srv.Stop()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Ctrl-C reaches the command too (its process group is ours); on a
	// SIGTERM it is passed on, and the command gets time to stop its own
	// children before it is killed.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), ddblocal.SharedURLVar+"="+srv.URL, ddblocal.SharedPIDVar+"="+strconv.Itoa(srv.PID()))
	runErr := cmd.Run()
	if peak, err := ddblocal.PeakRSS(srv.PID()); err == nil {
		fmt.Fprintf(os.Stderr, "ddblocal: DynamoDB Local %s peak RSS %d MB\n", ddblocal.Version, peak>>20)
	}
	var exit *exec.ExitError
	if errors.As(runErr, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, runErr
}
