package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/testenv"
)

func TestAdminEnv(t *testing.T) {
	env, err := readEnv(func(k string) string {
		return map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:5000", "AWS_ACCESS_KEY_ID": "AKIAREAL", "AWS_SECRET_ACCESS_KEY": "real secret",
			"DNS_RESOLVER": "127.0.0.1:5399"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	env.over["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:6000"
	env.over["WEBHOOK_QUEUE_URL"] = "http://127.0.0.1:5000/000000000000/survey-webhooks"
	got := strings.Join(adminEnv(env), " ")
	want := "AWS_ENDPOINT_URL=http://127.0.0.1:5000 AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:6000 AWS_REGION=us-east-1 DNS_RESOLVER=127.0.0.1:5399 " +
		"TABLE_NAME=surveys WEBHOOK_QUEUE_URL=http://127.0.0.1:5000/000000000000/survey-webhooks"
	if got != want {
		t.Errorf("adminEnv = %q, want %q (an operator's own credentials are never written)", got, want)
	}
	env.over["AWS_ACCESS_KEY_ID"], env.over["AWS_SECRET_ACCESS_KEY"] = "test", "test"
	if got := exportLine(adminEnv(env)); !strings.Contains(got, "AWS_ACCESS_KEY_ID=test AWS_ENDPOINT_URL=") {
		t.Errorf("exportLine = %q, want the emulators' dummy credentials", got)
	}
	for in, want := range map[string]string{"http://127.0.0.1:5000": "http://127.0.0.1:5000", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	path := filepath.Join(t.TempDir(), "sub", "make-run.env")
	remove, err := writeAdminEnv(path, []string{"TABLE_NAME=a b"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "\nTABLE_NAME='a b'\n") {
		t.Errorf("env file:\n%s", b)
	}
	remove()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the env file is still there after make run stopped: %v", err)
	}
}

// TestMakeAdminReachesMakeRun is the README's recipe: with `make run`
// running, `make admin ARGS='account create ...'` creates an account in
// its table, with nothing else set.
func TestMakeAdminReachesMakeRun(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("the recipe needs make: %v", err)
	}
	envFile := filepath.Join(t.TempDir(), "make-run.env")
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1",
		"TABLE_NAME": "adminrecipe", "PORT": freePort(t), "HOME": os.Getenv("HOME"), "ADMIN_ENV_FILE": envFile,
	}
	_, base := startLocal(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", "-C", "../..", "--no-print-directory", "admin",
		"ADMIN_ENV_FILE="+envFile, "ARGS=account create --email newcomer@example.com --plan pro")
	cmd.Env = cleanAWSEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make admin: %v\n%s", err, out)
	}
	var acct struct {
		ID  int64  `json:"account_id"`
		Key string `json:"api_key"`
	}
	if err := json.Unmarshal(out, &acct); err != nil || acct.ID == 0 || !strings.HasPrefix(acct.Key, "svk_") {
		t.Fatalf("make admin answered %s (%v), want the new account and its key", out, err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/whoami/", nil)
	req.Header.Set("Authorization", "API-Key "+acct.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "newcomer@example.com") {
		t.Errorf("whoami with the new key: %d %s, want the account make admin created", resp.StatusCode, body)
	}
	// The deliveries the admin command records (domain events) go on make
	// run's own webhook queue, which its deliverer reads at once (before,
	// they waited for the retrier's pass, some 5 minutes: hostile10).
	if b, err := os.ReadFile(envFile); err != nil || !strings.Contains(string(b), "\nWEBHOOK_QUEUE_URL=") || !strings.Contains(string(b), "/survey-webhooks\n") {
		t.Errorf("the admin env file names no webhook queue of make run's: %v\n%s", err, b)
	}
	cmd = exec.CommandContext(ctx, "make", "-C", "../..", "--no-print-directory", "admin",
		"ADMIN_ENV_FILE="+envFile+".missing", "ARGS=key create --account 1")
	cmd.Env = cleanAWSEnv(os.Environ())
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "Start make run first") {
		t.Errorf("make admin without a make run: %v\n%s", err, out)
	}
}

// cleanAWSEnv is environ without AWS_ variables, as a newcomer's shell.
func cleanAWSEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "AWS_") {
			out = append(out, kv)
		}
	}
	return out
}
