package docs

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Page is a topic rendered for the site: its title and its body as HTML
// (from the first heading on), with links between topics made site links.
type Page struct {
	Name, Title string
	HTML        []byte
}

var rendered sync.Map // topic name -> Page

// HTML answers a topic rendered as HTML, or false when there is no such
// topic. Each topic is rendered once per process.
func HTML(name string) (Page, bool) {
	if p, ok := rendered.Load(name); ok {
		return p.(Page), true
	}
	src, ok := Topic(name)
	if !ok {
		return Page{}, false
	}
	p, err := render(name, src)
	if err != nil {
		return Page{}, false
	}
	rendered.Store(name, p)
	return p, true
}

var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithASTTransformers(util.Prioritized(siteLinks{}, 100))),
)

func render(name string, src []byte) (Page, error) {
	ctx := parser.NewContext(parser.WithIDs(&githubIDs{seen: map[string]int{}}))
	doc := markdown.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
	var buf bytes.Buffer
	if err := markdown.Renderer().Render(&buf, src, doc); err != nil {
		return Page{}, fmt.Errorf("docs: render %s: %w", name, err)
	}
	// A block that scrolls sideways on a phone (code, a wide table) takes
	// the keyboard's focus, so that it can be scrolled without a pointer.
	out := bytes.ReplaceAll(buf.Bytes(), []byte("<pre>"), []byte(`<pre tabindex="0">`))
	out = bytes.ReplaceAll(out, []byte("<table>"), []byte(`<table tabindex="0">`))
	title := name
	for _, e := range Topics() {
		if e.Name == name {
			title = e.Title
		}
	}
	return Page{Name: name, Title: title, HTML: out}, nil
}

// githubIDs gives headings the anchors GitHub gives them, so that a link
// written for the repository's view (operating.md#configuration) reaches
// the same heading on the site.
type githubIDs struct{ seen map[string]int }

func (g *githubIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	a := Anchor(string(value))
	n := g.seen[a]
	g.seen[a]++
	if n > 0 {
		a += "-" + strconv.Itoa(n)
	}
	return []byte(a)
}

func (g *githubIDs) Put(value []byte) { g.seen[string(value)]++ }

// Anchor is the anchor GitHub gives a heading: lower case; letters, digits,
// '-' and '_' kept; spaces made hyphens.
func Anchor(h string) string {
	h = strings.ToLower(strings.TrimSpace(strings.ReplaceAll(h, "`", "")))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// siteLinks makes the repository's relative links work on the site: a
// topic (api.md#x) becomes /docs/api/#x, the README the home page, the
// OpenAPI document /api/schema/, an image /docs/<file>; a link to a source
// file, which the site does not serve, becomes its text.
type siteLinks struct{}

func (siteLinks) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var unlink []*ast.Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			if dest, ok := SiteLink(string(l.Destination)); ok {
				l.Destination = []byte(dest)
			} else {
				unlink = append(unlink, l)
			}
		case *ast.Image:
			if dest, ok := SiteLink(string(l.Destination)); ok {
				l.Destination = []byte(dest)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, l := range unlink {
		parent := l.Parent()
		for c := l.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, l, c)
			c = next
		}
		parent.RemoveChild(parent, l)
	}
}

// SiteLink answers where a link of a topic's Markdown leads on the site,
// or false when the site has nothing there (a source file).
func SiteLink(dest string) (string, bool) {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") || strings.HasPrefix(dest, "/") {
		return dest, true
	}
	file, frag, _ := strings.Cut(dest, "#")
	if frag != "" {
		frag = "#" + frag
	}
	switch clean := path.Clean(file); {
	case clean == "../README.md":
		return "/", true
	case clean == "../shared/openapi/openapi.yaml":
		return "/api/schema/", true
	case !strings.Contains(clean, "/") && strings.HasSuffix(clean, ".md"):
		if _, ok := Topic(strings.TrimSuffix(clean, ".md")); ok {
			return "/docs/" + strings.TrimSuffix(clean, ".md") + "/" + frag, true
		}
	case strings.HasPrefix(clean, "images/"):
		if _, ok := Asset(strings.TrimPrefix(clean, "images/")); ok {
			return "/docs/" + clean + "/", true
		}
	}
	return "", false
}
