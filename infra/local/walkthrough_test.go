package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"surveyservice/internal/testenv"
)

// TestWalkthrough runs examples/walkthrough.sh, the README's walkthrough,
// as the README says: `make run` on a port other than 3000, the export
// line its banner prints pasted into another terminal, then the script.
// So the example cannot rot: the script fails on any answer whose status
// is not the one it expects.
func TestWalkthrough(t *testing.T) {
	testenv.Store(t) // integration test: not in -short
	t.Parallel()
	env := map[string]string{"PORT": freePort(t), "HOME": os.Getenv("HOME"), "LOCAL_DATA_DIR": filepath.Join(t.TempDir(), "data")}
	if env["PORT"] == "3000" {
		env["PORT"] = freePort(t)
	}
	r := startRun(t, env)
	t.Cleanup(r.stop)
	out := runWalkthrough(t, r)
	base := r.base
	for _, want := range []string{
		"Personalised link: " + base + "/s/", "submitted_responses: 1",
		"Survey page: " + base + "/s/", "Report:      " + base + "/r/",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the walkthrough's output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("walkthrough:\n%s", out)
}
