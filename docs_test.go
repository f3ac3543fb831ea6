package surveyservice

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"surveyservice/docs"
)

var (
	mdLink     = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
)

// markdownFiles are the documents whose relative links must hold.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v (%d files)", err, len(docs))
	}
	return append([]string{"README.md"}, docs...)
}

// scanMarkdown calls line for every line outside fenced code blocks.
func scanMarkdown(text string, line func(n int, s string)) {
	fenced := false
	for i, s := range strings.Split(text, "\n") {
		if strings.HasPrefix(s, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			line(i+1, s)
		}
	}
}

// anchors are the heading anchors of a Markdown file (a repeated heading's
// later anchors get -1, -2, ... as on GitHub).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	scanMarkdown(text, func(_ int, s string) {
		h := strings.TrimLeft(s, "#")
		if len(h) == len(s) || len(s)-len(h) > 6 || !strings.HasPrefix(h, " ") {
			return
		}
		a := docs.Anchor(h) // the site gives headings the same anchors
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	})
	return out
}

// TestDocsLinks: every relative link of README.md and docs/*.md names a
// file of the repository, and a heading of it when it names one.
func TestDocsLinks(t *testing.T) {
	texts := map[string]string{}
	read := func(path string) (string, bool) {
		if s, ok := texts[path]; ok {
			return s, true
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", false
		}
		texts[path] = string(b)
		return string(b), true
	}
	for _, file := range markdownFiles(t) {
		text, ok := read(file)
		if !ok {
			t.Fatalf("read %s", file)
		}
		scanMarkdown(text, func(n int, s string) {
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(s, "``"), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				resolved := file
				if path != "" {
					resolved = filepath.Join(filepath.Dir(file), path)
					if _, err := os.Stat(resolved); err != nil {
						t.Errorf("%s:%d: %s: no such file", file, n, target)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(resolved, ".md") {
					continue
				}
				doc, _ := read(resolved)
				if !anchors(doc)[anchor] {
					t.Errorf("%s:%d: %s: %s has no heading #%s", file, n, target, resolved, anchor)
				}
			}
		})
	}
}

// TestREADMEWalkthroughIsTheScript: the README's walkthrough is the text of
// examples/walkthrough.sh, which infra/local's TestWalkthrough runs.
func TestREADMEWalkthroughIsTheScript(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("examples/walkthrough.sh")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- walkthrough:")
	if !ok {
		t.Fatal("README.md has no <!-- walkthrough: ... --> block")
	}
	block, _, ok := strings.Cut(rest, "<!-- end of walkthrough -->")
	if !ok {
		t.Fatal("README.md's walkthrough block has no <!-- end of walkthrough -->")
	}
	_, block, _ = strings.Cut(block, "```sh\n")
	block, _, _ = strings.Cut(block, "```\n")
	if block != string(script) {
		t.Errorf("README.md's walkthrough differs from examples/walkthrough.sh: copy the script into the block")
	}
}
