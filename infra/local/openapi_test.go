package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"surveyservice/shared/openapi"
)

// TestOpenAPIMatchesRoutes: the document's paths and methods are exactly
// the routes the functions serve (which template.yaml's routes reach:
// TestContractPathsReachTheirFunction), plus OPTIONS, which every path
// answers.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(openapi.YAML, &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				got[path] = append(got[path], strings.ToUpper(method))
			}
		}
	}
	want := map[string][]string{}
	for name, rt := range routers(nil, routesConfig()) {
		for _, r := range rt.Routes() {
			if name == "PagesFunction" && !strings.HasPrefix(r.Path, "/api/") {
				continue // HTML pages (contract 14), not the JSON API the document describes; oEmbed is JSON
			}
			if !slices.Contains(want[r.Path], "OPTIONS") {
				want[r.Path] = append(want[r.Path], "OPTIONS")
			}
			want[r.Path] = append(want[r.Path], r.Method)
		}
	}
	for p := range want {
		sort.Strings(want[p])
	}
	for p := range got {
		sort.Strings(got[p])
	}
	for p, methods := range want {
		if !slices.Equal(got[p], methods) {
			t.Errorf("%s: the document has %v, the routes are %v", p, got[p], methods)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("the document has %s, which no function serves", p)
		}
	}
}

// TestOpenAPIIsValid runs openapi-spec-validator (the reference validator,
// installed with the pyenv Python) on the document. It fails, never skips,
// when the validator is missing.
func TestOpenAPIIsValid(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("openapi-spec-validator")
	if err != nil {
		bin = filepath.Join(os.Getenv("HOME"), ".pyenv", "shims", "openapi-spec-validator")
		if _, err := os.Stat(bin); err != nil {
			t.Fatal("openapi-spec-validator not found on PATH nor in ~/.pyenv/shims: install it (pip install openapi-spec-validator)")
		}
	}
	out, err := exec.Command(bin, "../../shared/openapi/openapi.yaml").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("openapi-spec-validator: %v\n%s", err, out)
	}
}
