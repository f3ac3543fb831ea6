// Package docs is the service's documentation by topic, embedded so that
// the service can serve it at /docs/{topic}/ beside the API it describes:
// each topic a page (HTML rendered from its Markdown), in reading order.
package docs

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

//go:embed *.md
var files embed.FS

// images are the pictures the topics show (docs/images/*.png), served at
// /docs/images/<file>; `make screenshots` makes the pages' ones again.
//
//go:embed images/*.png
var images embed.FS

// Order is the topics in reading order, as the site's contents list shows
// them: a newcomer's first steps, then the API and the pages, then
// operating and the design. A topic missing here follows them, by name.
var Order = []string{
	"local", "api", "responding", "responder-settings", "logic-and-quizzes", "templates-and-embedding",
	"themes", "languages", "domains", "teams", "webhooks", "operating", "data-model", "scale", "measuring", "layout",
}

// Topic answers the Markdown text of a topic ("api" for api.md), or false
// when there is no such topic.
func Topic(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/.\\") {
		return nil, false
	}
	b, err := files.ReadFile(name + ".md")
	return b, err == nil
}

// Asset answers an image the topics show (docs/images/<name>, a PNG), or
// false.
func Asset(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/\\") || path.Ext(name) != ".png" {
		return nil, false
	}
	b, err := images.ReadFile("images/" + name)
	return b, err == nil
}

// Topics answers every topic's name and title (the first heading of its
// file), in reading order (Order).
func Topics() []Entry {
	names, _ := fs.Glob(files, "*.md")
	out := make([]Entry, 0, len(names))
	for _, n := range names {
		b, _ := files.ReadFile(n)
		title := strings.TrimSuffix(n, ".md")
		for _, line := range strings.Split(string(b), "\n") {
			if t, ok := strings.CutPrefix(line, "# "); ok {
				title = strings.TrimSpace(t)
				break
			}
		}
		out = append(out, Entry{Name: strings.TrimSuffix(n, ".md"), Title: title})
	}
	rank := func(name string) int {
		if i := slices.Index(Order, name); i >= 0 {
			return i
		}
		return len(Order)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i].Name), rank(out[j].Name)
		if ri != rj {
			return ri < rj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Entry is one topic: its name in the path and its title.
type Entry struct{ Name, Title string }
