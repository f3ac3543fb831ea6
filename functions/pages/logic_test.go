package pages_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLogicJSCases runs the page's evaluator of display conditions
// (web/logic.js) with node over the table of cases the Go evaluator passes
// too (shared/survey/testdata/conditions_cases.json), so the page and the
// server agree on what is shown. It fails, never skips, without node.
func TestLogicJSCases(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to test web/logic.js: %v", err)
	}
	out, err := exec.Command(node, "testdata/logic_cases.js", "web/logic.js", "../../shared/survey/testdata/conditions_cases.json").CombinedOutput()
	if err != nil {
		t.Fatalf("logic.js fails cases: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"failed":0`) {
		t.Fatalf("unexpected output: %s", out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}
