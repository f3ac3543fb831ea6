package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/testenv"
)

// TestWalkthrough runs examples/walkthrough.sh, the README's walkthrough,
// against a started `make run`, so that the example cannot rot: the script
// fails on any answer whose status is not the one it expects.
func TestWalkthrough(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the walkthrough needs %s: %v", tool, err)
		}
	}
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1",
		"TABLE_NAME": "walkthrough", "PORT": freePort(t), "HOME": os.Getenv("HOME"),
	}
	// On an endpoint of the caller's own make run makes no demo account
	// (contract section 9): the test makes the owner, as the admin
	// command would.
	_, base := startLocal(t, env)
	key := accountOn(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../../examples/walkthrough.sh")
	cmd.Env = append(os.Environ(), "BASE="+base, "KEY="+key)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("walkthrough: %v\n%s", err, out)
	}
	for _, want := range []string{
		"Personalised link: " + base + "/s/", "submitted_responses: 1",
		"Survey page: " + base + "/s/", "Report:      " + base + "/r/",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walkthrough's output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("walkthrough:\n%s", out)
}
