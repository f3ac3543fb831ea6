// Package docs is the service's documentation by topic, embedded so that
// the service can serve it at /docs/{topic}/ beside the API it describes.
package docs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.md
var files embed.FS

// Topic answers the Markdown text of a topic ("api" for api.md), or false
// when there is no such topic.
func Topic(name string) ([]byte, bool) {
	if name == "" || strings.ContainsAny(name, "/.\\") {
		return nil, false
	}
	b, err := files.ReadFile(name + ".md")
	return b, err == nil
}

// Topics answers every topic's name, sorted, and its title (the first
// heading of its file).
func Topics() []Entry {
	names, _ := fs.Glob(files, "*.md")
	sort.Strings(names)
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
	return out
}

// Entry is one topic: its name in the path and its title.
type Entry struct{ Name, Title string }
