package localaws_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testOnly are the names of what tests and `make run` use to set up and
// disturb AWS and to check answers: no package a Lambda function links may
// declare them (style.md: local stand-ins never ship).
var testOnly = map[string]bool{
	"InjectFaults": true, "LostReply": true, "Fault": true, // the fault injector
	"CheckResponses": true, "ResponseCheck": true, // the OpenAPI check of every answer
	"EnsureTable": true, "EnsureKey": true, "Ensure": true, "NewAt": true, "OpenEnv": true, // local set-up
	"ImportSurveys": true, "ImportElements": true, // the store's test seeders (built without lambda.norpc only)
}

// listed is the part of `go list -json` this test reads.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Deps       []string
	Module     *struct{ Path string }
}

// TestLambdasCarryNoLocalStandIns builds the import graph of every Lambda
// main (functions/*/lambda) as `make build` builds it and holds that none
// imports internal/... (emulators, fault injection, the OpenAPI check,
// local set-up) nor links a package of the module that declares one of
// the test-only names.
func TestLambdasCarryNoLocalStandIns(t *testing.T) {
	mains := goList(t, "-tags", "lambda.norpc", "./functions/...")
	var lambdas []listed
	for _, p := range mains {
		if strings.HasSuffix(p.ImportPath, "/lambda") {
			lambdas = append(lambdas, p)
		}
	}
	if len(lambdas) < 18 {
		t.Fatalf("found %d Lambda mains under functions/, want 18 or more", len(lambdas))
	}
	module := lambdas[0].Module.Path
	linked := map[string]bool{}
	for _, l := range lambdas {
		for _, dep := range append(l.Deps, l.ImportPath) {
			if dep == module || strings.HasPrefix(dep, module+"/") {
				linked[dep] = true
			}
			if strings.HasPrefix(dep, module+"/internal/") {
				t.Errorf("%s imports %s", l.ImportPath, dep)
			}
		}
	}
	var paths []string
	for p := range linked {
		paths = append(paths, p)
	}
	for _, p := range goList(t, append([]string{"-tags", "lambda.norpc"}, paths...)...) {
		for _, f := range p.GoFiles {
			for _, name := range declared(t, filepath.Join(p.Dir, f)) {
				if testOnly[name] {
					t.Errorf("%s (%s), which a Lambda links, declares %s", p.ImportPath, f, name)
				}
			}
		}
	}
	t.Logf("%d Lambda mains link %d packages of the module", len(lambdas), len(linked))
}

// goList runs `go list -json` with args from the module's root.
func goList(t *testing.T, args ...string) []listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json=ImportPath,Dir,GoFiles,Deps,Module"}, args...)...)
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var ps []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: decode: %v", err)
		}
		ps = append(ps, p)
	}
	return ps
}

// declared is the exported top-level functions, methods and types of a
// Go file.
func declared(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			names = append(names, d.Name.Name)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					names = append(names, ts.Name.Name)
				}
			}
		}
	}
	return names
}
