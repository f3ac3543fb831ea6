package pages

import (
	"net/http"

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

// renderDocsIndex lists the documentation's topics.
func renderDocsIndex() []byte {
	var d doc
	p := newPage("en", "Survey Service documentation")
	p.NoScript = true
	d.head(p)
	d.w("<h1>Documentation</h1>\n<ul class=\"home\">\n")
	for _, e := range docs.Topics() {
		d.w("<li><a href=\"/docs/%s/\">%s</a></li>\n", text(e.Name), text(e.Title))
	}
	d.w("</ul>\n<p><a href=\"/\">Survey Service</a></p>\n")
	d.foot()
	return d.bytes()
}

var homePage, docsIndex = renderHome(), renderDocsIndex()

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

// handleDoc answers a topic's Markdown as plain text, which every browser
// shows as it is written.
func handleDoc() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := docs.Topic(r.PathValue("topic"))
		if !ok {
			writeNotFound(w, r)
			return
		}
		writeFile(w, r, "text/plain; charset=utf-8", "public, max-age=300", "default-src 'none'; frame-ancestors 'none'", body)
	})
}
