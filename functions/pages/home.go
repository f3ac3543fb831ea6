package pages

import (
	"net/http"
	"sync"

	"surveyservice/docs"
)

// renderHome is the page at /: what the service is and where to read on.
// Its links are relative: the API, the pages and the docs share one
// address in a deployment (one HTTP API) and in `make run`.
func renderHome() []byte {
	var d doc
	p := newPage("en", "Survey Service")
	p.Description = "An HTTP API for surveys: folders, surveys, questions, settings, codes and personalised links, hosted pages for responders, reports and a template catalog."
	p.NoScript = true
	d.head(p)
	d.w(`<h1>Survey Service</h1>
<p>An HTTP API for survey owners (folders, surveys, questions, settings, codes and personalised links),
hosted pages on which responders answer (on phones, in Persian, embedded in other sites),
public reports, and a template catalog.</p>
<ul class="home">
<li><a href="/api/schema/">The OpenAPI document</a>: every route, its fields and answers.</li>
<li><a href="/api/templates/?format=api">The browsable API</a>: any route with <code>?format=api</code>.</li>
<li><a href="/docs/">The documentation</a>, by topic.</li>
</ul>
`)
	d.foot()
	return d.bytes()
}

// renderDocsIndex lists the documentation's topics in reading order.
func renderDocsIndex() []byte {
	var d doc
	p := newPage("en", "Survey Service documentation")
	p.NoScript = true
	p.Styles = []string{"docs.css"}
	p.Description = "The Survey Service's documentation, by topic, in reading order."
	d.head(p)
	d.w("<div class=\"docs\">\n<h1>Documentation</h1>\n<p>The topics in reading order; start with the first.</p>\n<ol>\n")
	for _, e := range docs.Topics() {
		d.w("<li><a href=\"/docs/%s/\">%s</a></li>\n", text(e.Name), text(e.Title))
	}
	d.w("</ol>\n<p><a href=\"/\">Survey Service</a> · <a href=\"/api/schema/\">The OpenAPI document</a></p>\n</div>\n")
	d.foot()
	return d.bytes()
}

// renderDoc is a topic's page: the contents list (the topics in reading
// order, this one marked), the topic rendered from its Markdown, and links
// to the topics before and after it.
func renderDoc(t docs.Page) []byte {
	var d doc
	p := newPage("en", t.Title+" · Survey Service documentation")
	p.NoScript = true
	p.Styles = []string{"docs.css"}
	d.head(p)
	topics := docs.Topics()
	d.w("<div class=\"docs\">\n<p class=\"skip\"><a href=\"#contents\">All topics</a></p>\n<nav class=\"toc\" id=\"contents\" aria-label=\"Documentation\"><a href=\"/docs/\">Documentation</a>\n<ol>\n")
	at := 0
	for i, e := range topics {
		current := markup("")
		if e.Name == t.Name {
			current, at = ` aria-current="page"`, i
		}
		d.w("<li><a href=\"/docs/%s/\"%s>%s</a></li>\n", text(e.Name), current, text(e.Title))
	}
	d.w("</ol>\n</nav>\n<article>\n%s</article>\n<nav class=\"pager\" aria-label=\"Previous and next topic\">", markup(t.HTML)) // rendered from our own Markdown, raw HTML left out
	if at > 0 {
		d.w("<a href=\"/docs/%s/\" rel=\"prev\">← %s</a>", text(topics[at-1].Name), text(topics[at-1].Title))
	} else {
		d.w("<span></span>")
	}
	if at+1 < len(topics) {
		d.w("<a href=\"/docs/%s/\" rel=\"next\">%s →</a>", text(topics[at+1].Name), text(topics[at+1].Title))
	}
	d.w("</nav>\n</div>\n")
	d.foot()
	return d.bytes()
}

var homePage, docsIndex = renderHome(), renderDocsIndex()

// docPages are the topics' pages, each rendered on its first request.
var docPages sync.Map

func handleHome() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writePage(w, r, http.StatusOK, homePage, "")
	})
}

func handleDocsIndex() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writePage(w, r, http.StatusOK, docsIndex, "")
	})
}

// handleDoc answers a topic as a page of the site.
func handleDoc() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("topic")
		body, ok := docPages.Load(name)
		if !ok {
			t, found := docs.HTML(name)
			if !found {
				writeNotFound(w, r)
				return
			}
			body, _ = docPages.LoadOrStore(name, renderDoc(t))
		}
		writePage(w, r, http.StatusOK, body.([]byte), "")
	})
}

// handleDocImage answers a picture a topic shows.
func handleDocImage() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs.Asset(r.PathValue("file"))
		if !ok {
			writeNotFound(w, r)
			return
		}
		writeFile(w, r, "image/png", "public, max-age=3600", "default-src 'none'; frame-ancestors 'none'", body)
	})
}
