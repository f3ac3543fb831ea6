package api

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// The browsable page shows what the JSON answer would be: the request line,
// the response headers and the body, pretty-printed. Every value written into
// it goes through html.EscapeString, so a template's HTML text shows as text
// and never becomes live markup; the page also carries a
// Content-Security-Policy that allows no script at all. (html/template would
// do the same escaping, at a quarter megabyte more per function binary.)
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex">
<title>`

const pageStyle = ` – Survey Service API</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;background:#f7f7f9;color:#222}
header{background:#2c3e50;color:#fff;padding:.8rem 1.5rem;font-weight:600}
main{padding:1rem 1.5rem;max-width:70rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
.request{background:#eef;border:1px solid #ccd;padding:.5rem .8rem;font-family:monospace}
pre{background:#fff;border:1px solid #ddd;padding:1rem;overflow:auto;white-space:pre-wrap;word-break:break-word}
.headers{color:#555}
.note{color:#555;font-size:.9rem}
</style>
</head>
<body>
<header>Survey Service API</header>
<main>
`

func browsablePage(r *http.Request, status int, h http.Header, body []byte) []byte {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "    "); err != nil {
		pretty.Reset()
		pretty.Write(body)
	}
	type header struct{ name, value string }
	headers := []header{{"Content-Type", "application/json"}}
	for name, values := range h {
		if name == "Content-Type" || name == "Content-Length" || name == "Content-Security-Policy" {
			continue
		}
		headers = append(headers, header{name, strings.Join(values, ", ")})
	}
	sort.Slice(headers, func(i, j int) bool { return headers[i].name < headers[j].name })
	path := r.URL.EscapedPath()
	if q := r.URL.RawQuery; q != "" {
		path += "?" + q
	}
	esc := html.EscapeString
	var b strings.Builder
	b.WriteString(pageHead)
	b.WriteString(esc(routeName(r)))
	b.WriteString(pageStyle)
	b.WriteString("<h1>" + esc(routeName(r)) + "</h1>\n")
	if note := noteOf(r); note != "" {
		b.WriteString(`<p class="note">` + esc(note) + "</p>\n")
	}
	b.WriteString(`<div class="request"><b>` + esc(r.Method) + "</b> " + esc(path) + "</div>\n")
	b.WriteString(`<pre><span class="headers"><b>HTTP ` + strconv.Itoa(status) + " " + esc(http.StatusText(status)) + "</b>\n")
	for _, hd := range headers {
		b.WriteString("<b>" + esc(hd.name) + ":</b> " + esc(hd.value) + "\n")
	}
	b.WriteString("</span>\n")
	b.WriteString(esc(pretty.String()))
	b.WriteString("</pre>\n</main>\n</body>\n</html>\n")
	return []byte(b.String())
}

type noteKey struct{}

// WithNote attaches a sentence that the browsable page shows above the
// answer (for example where relative media paths resolve).
func WithNote(r *http.Request, note string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), noteKey{}, note))
}

func noteOf(r *http.Request) string {
	s, _ := r.Context().Value(noteKey{}).(string)
	return s
}
