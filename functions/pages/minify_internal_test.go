package pages

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// servedAsset is the body of the asset served for a plain name.
func servedAsset(t *testing.T, name string) []byte {
	t.Helper()
	a, ok := assets[strings.TrimPrefix(assetNames[name], "/assets/")]
	if !ok {
		t.Fatalf("no asset %s", name)
	}
	return a.body
}

func nodePath(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to test the page's scripts: %v", err)
	}
	return node
}

// TestLogicJSCases runs the page's evaluator of display conditions as it
// is served (web/logic.js with web/logic_page.js, minified) with node over
// the table of cases the Go evaluator passes too
// (shared/survey/testdata/conditions_cases.json), so the page and the
// server agree on what is shown. It fails, never skips, without node.
func TestLogicJSCases(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "logic.js")
	if err := os.WriteFile(file, servedAsset(t, "logic.js"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(nodePath(t), "testdata/logic_cases.js", file, "../../shared/survey/testdata/conditions_cases.json").CombinedOutput()
	if err != nil {
		t.Fatalf("the served logic.js fails cases: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), `"failed":0`) {
		t.Fatalf("unexpected output: %s", out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

// TestServedScripts: every served script is its minified source, which
// node parses, which minifying again leaves as it is, and which is
// smaller than the source; the stylesheet likewise (but for node).
func TestServedScripts(t *testing.T) {
	t.Parallel()
	node := nodePath(t)
	for plain := range assetNames {
		ext := filepath.Ext(plain)
		if ext != ".js" && ext != ".css" {
			continue
		}
		t.Run(plain, func(t *testing.T) {
			served := servedAsset(t, plain)
			var src []byte
			for _, n := range append([]string{}, bundleOf(plain)...) {
				b, err := web.ReadFile("web/" + n)
				if err != nil {
					t.Fatal(err)
				}
				src = append(src, b...)
			}
			again := minifyCSS(served)
			if ext == ".js" {
				again = minifyJS(served)
			}
			if string(again) != string(served) {
				t.Errorf("minifying %s again changes it", plain)
			}
			if len(served) >= len(src) {
				t.Errorf("%s served %d bytes, source %d", plain, len(served), len(src))
			}
			t.Logf("%s: source %d bytes, served %d", plain, len(src), len(served))
			if ext != ".js" {
				return
			}
			file := filepath.Join(t.TempDir(), plain)
			if err := os.WriteFile(file, served, 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(node, "--check", file).CombinedOutput(); err != nil {
				t.Fatalf("node cannot parse the served %s: %v\n%s", plain, err, out)
			}
		})
	}
}

func bundleOf(name string) []string {
	if b, ok := bundles[name]; ok {
		return b
	}
	return []string{name}
}

// TestMinify: what the minifier keeps and drops.
func TestMinify(t *testing.T) {
	t.Parallel()
	js := []struct{ in, want string }{
		{"var a = 1;  // note\nvar b = a + +1;\n", "var a=1;var b=a+ +1;\n"},
		{"x = a - -b;", "x=a- -b;\n"},
		{"/* block\n comment */ f( a , b )\n", "f(a,b)\n"},
		{"s = \"a  // b\" + 'c /* d */' + `e  f`;", "s=\"a  // b\"+'c /* d */'+`e  f`;\n"},
		{"r = /[/\\]]+  x/g.test(s) / 2;", "r= /[/\\]]+  x/g.test(s) / 2;\n"},
		{"return /a b/.test(x)\n", "return /a b/.test(x)\n"},
		{"a = b\n(c)\n", "a=b\n(c)\n"},
		{"return\nx\n", "return\nx\n"},
		{"if (a) {\n  b();\n}\nc\n++d\n", "if(a){b();}\nc\n++d\n"},
		{"var s = \"\\\"  \";", "var s=\"\\\"  \";\n"},
	}
	for _, c := range js {
		if got := string(minifyJS([]byte(c.in))); got != c.want {
			t.Errorf("minifyJS(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	css := []struct{ in, want string }{
		{"/* x */\n.a .b:hover , .c > p {\n  color: red;\n  margin: 0 auto;\n}\n", ".a .b:hover,.c>p{color: red;margin: 0 auto;}"},
		{"a[title=\"x  y\"] { content: \"a  b\" }", "a[title=\"x  y\"]{content: \"a  b\"}"},
	}
	for _, c := range css {
		if got := string(minifyCSS([]byte(c.in))); got != c.want {
			t.Errorf("minifyCSS(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
