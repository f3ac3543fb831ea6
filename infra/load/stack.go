package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"surveyservice/infra/seed"
	"surveyservice/internal/conflict"
	"surveyservice/internal/ddblocal"
	"surveyservice/internal/localaws"
	"surveyservice/internal/moto"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// stack is the whole local stack of `make run`: DynamoDB Local behind the
// conflict model, moto for KMS, SQS and S3, and the local server (the
// binary `make run` runs, with its tally, export and webhook pollers). The
// emulators are started here, as `make run` starts them (infra/local's
// emulators.go), rather than by the server, so that the scenario can read
// the conflict model's count and the table itself: the responses stored,
// counted apart from every count the service keeps.
type stack struct {
	server
	ddb   *ddblocal.Server
	moto  *moto.Server
	proxy *http.Server
	model *conflict.Proxy
	// st reads the server's table directly (consistent reads).
	st *store.Store
	// account is the owner's.
	account int64
}

// server is the local API's process.
type server struct {
	cmd  *exec.Cmd
	base string
	key  string
	errs *errorLog
}

// errorLog counts the server's log lines at level ERROR (a poller that
// failed, a 500) and keeps the first few.
type errorLog struct {
	mu    sync.Mutex
	part  []byte
	n     int
	first []string
}

func (l *errorLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part = append(l.part, p...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			break
		}
		line := l.part[:i]
		if bytes.Contains(line, []byte(`"level":"ERROR"`)) {
			l.n++
			if len(l.first) < 5 {
				l.first = append(l.first, string(line))
			}
		}
		l.part = l.part[i+1:]
	}
	return len(p), nil
}

// errors answers the count of ERROR lines and the first few.
func (l *errorLog) errors() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n, append([]string(nil), l.first...)
}

// startStack starts the emulators, the conflict model (holding each write
// transaction's items for hold) and the local server, with extra in its
// environment.
func startStack(ctx context.Context, hold time.Duration, extra map[string]string) (_ *stack, err error) {
	s := &stack{}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	bin, err := buildServer()
	if err != nil {
		return nil, err
	}
	in, err := ddblocal.Find(os.Getenv("DYNAMODB_LOCAL_DIR"))
	if err != nil {
		return nil, err
	}
	motoBin, err := moto.Find(os.Getenv("HOME"))
	if err != nil {
		return nil, err
	}
	ddbErr := make(chan error, 1)
	go func() {
		var err error
		s.ddb, err = ddblocal.Start(ctx, in, os.Getenv("DYNAMODB_LOCAL_HEAP"))
		ddbErr <- err
	}()
	s.moto, err = moto.Start(ctx, motoBin)
	if err = errors.Join(err, <-ddbErr); err != nil {
		return nil, err
	}
	s.model, err = conflict.New(s.ddb.URL, hold)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.proxy = &http.Server{Handler: s.model, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.proxy.Serve(ln) }()
	env := map[string]string{
		"AWS_ENDPOINT_URL":                  s.moto.URL,
		"AWS_ENDPOINT_URL_DYNAMODB":         "http://" + ln.Addr().String(),
		"AWS_ENDPOINT_URL_DYNAMODB_STREAMS": s.ddb.URL,
		"AWS_REGION":                        "us-east-1",
		"AWS_ACCESS_KEY_ID":                 "test",
		"AWS_SECRET_ACCESS_KEY":             "test",
	}
	for k, v := range extra {
		env[k] = v
	}
	s.server, err = startServer(bin, env)
	if err != nil {
		return nil, err
	}
	// The table the server made, read straight from DynamoDB Local (not
	// through the model: counting must not be cancelled).
	direct := map[string]string{}
	for k, v := range env {
		direct[k] = v
	}
	direct["AWS_ENDPOINT_URL_DYNAMODB"] = s.ddb.URL
	s.st, err = localaws.OpenStore(ctx, func(k string) string { return direct[k] })
	if err != nil {
		return nil, err
	}
	// make run makes no sample data on emulators of the caller's own
	// (contract section 9): the load brings its sample catalog and its
	// owner, as the admin command would.
	if _, err := s.st.ImportTemplates(ctx, seed.Templates); err != nil {
		return nil, fmt.Errorf("load: the sample catalog: %w", err)
	}
	acct, err := s.st.CreateAccount(ctx, survey.Account{Email: "load-owner@example.com", FirstName: "Load", LastName: "Owner", Plan: survey.PlanEnterprise})
	if err != nil {
		return nil, fmt.Errorf("load: the owner's account: %w", err)
	}
	s.account = acct.ID
	if s.key, err = s.st.CreateKey(ctx, acct.ID); err != nil {
		return nil, fmt.Errorf("load: the owner's key: %w", err)
	}
	return s, nil
}

func (s *stack) stop() {
	if s.cmd != nil {
		s.server.stop()
	}
	if s.proxy != nil {
		_ = s.proxy.Close()
	}
	if s.moto != nil {
		s.moto.Stop()
	}
	if s.ddb != nil {
		s.ddb.Stop()
	}
}

// buildServer builds `make run`'s server (infra/local) into a temporary
// directory. The import path works from any directory of the module (a
// test runs in infra/load).
func buildServer() (string, error) {
	dir, err := os.MkdirTemp("", "survey-load")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "local")
	build := exec.Command("go", "build", "-o", bin, "surveyservice/infra/local")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build the local server: %w", err)
	}
	return bin, nil
}

// startServer runs the local server with env (the emulators' endpoints)
// on a free port, and waits until it listens.
func startServer(bin string, env map[string]string) (server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return server{}, err
	}
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PORT="+port)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return server{}, err
	}
	s := server{cmd: cmd, errs: &errorLog{}}
	cmd.Stderr = s.errs // the access log: one line a request
	if err := cmd.Start(); err != nil {
		return server{}, err
	}
	sc := bufio.NewScanner(out)
	deadline := time.AfterFunc(3*time.Minute, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	defer deadline.Stop()
	for sc.Scan() {
		if b, ok := strings.CutPrefix(sc.Text(), "Listening on "); ok {
			s.base = b
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return s, nil
		}
	}
	s.stop()
	return server{}, errors.New("the local server stopped before listening")
}

func (s *server) stop() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}
