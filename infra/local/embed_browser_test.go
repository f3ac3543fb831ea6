package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The embedding tests (contract section 17) put a survey in an iframe of a
// page on another local origin (another port of 127.0.0.1), with the snippet
// of docs/templates-and-embedding.md: the parent listens to the page's
// messages and sets the frame's height from survey:resize.

// embedSnippet is that snippet for a survey page at src, its
// messages accepted from origin only; the parent keeps them in
// window.msgs for the test.
func embedSnippet(src, origin string) string {
	return `<iframe id="survey-frame" src="` + src + `" title="Survey" style="width:100%;border:0" loading="lazy"></iframe>
<script>
  window.msgs = [];
  window.addEventListener("message", function (e) {
    if (e.origin !== "` + origin + `" || !e.data) return;
    window.msgs.push(e.data);
    if (e.data.type === "survey:resize") document.getElementById("survey-frame").style.height = e.data.height + "px";
    if (e.data.type === "survey:submitted") document.title = "submitted";
  });
</script>`
}

// parentSite serves a page that embeds src, on an origin of its own.
func parentSite(t *testing.T, src, origin string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Blog</title></head><body style="margin:0"><h1>My blog</h1>`+embedSnippet(src, origin)+`</body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// childFrameURL is the address the browser shows in the parent's iframe:
// chrome-error://chromewebdata/ when it refused to render it.
func childFrameURL(t *testing.T, ctx context.Context) string {
	t.Helper()
	var tree *page.FrameTree
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		tree, err = page.GetFrameTree().Do(ctx)
		return err
	})); err != nil {
		t.Fatal(err)
	}
	if len(tree.ChildFrames) != 1 {
		t.Fatalf("%d child frames, want 1", len(tree.ChildFrames))
	}
	return tree.ChildFrames[0].Frame.URL
}

// messages are the survey's messages the parent received.
func messages(t *testing.T, ctx context.Context) []map[string]any {
	t.Helper()
	var raw string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`JSON.stringify(window.msgs)`, &raw)); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBrowserEmbedded: a page on another origin embeds a survey; the frame
// grows to its content's height, a responder answers inside it, and the
// parent receives survey:submitted (no answers, no ids); the response is
// stored.
func TestBrowserEmbedded(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Embedded", Language: 4, Elements: []map[string]any{
		{"type": 2, "title": "What brought you to our blog?", "description": "A sentence or two is plenty."},
	}})
	parent := parentSite(t, p.srv.URL+"/s/"+sv.URLSlug+"/", p.srv.URL)
	if strings.TrimPrefix(parent.URL, "http://127.0.0.1:") == strings.TrimPrefix(p.srv.URL, "http://127.0.0.1:") {
		t.Fatal("the parent and the survey share an origin")
	}
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(parent.URL)); err != nil {
		t.Fatal(err)
	}
	// The frame follows the page's height: wait until it settles.
	var height, said float64
	var msgs []map[string]any
	for range 1200 {
		height = evalJS[float64](t, ctx, `document.getElementById("survey-frame").getBoundingClientRect().height`)
		if msgs = messages(t, ctx); len(msgs) > 0 {
			said, _ = msgs[len(msgs)-1]["height"].(float64)
		}
		if height > 200 && height == said {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(msgs) == 0 || msgs[0]["type"] != "survey:resize" {
		t.Fatalf("the parent got %v, want survey:resize first", msgs)
	}
	if height <= 200 || height != said {
		t.Fatalf("the frame is %vpx high; the last resize said %v (the default frame is 150px)", height, said)
	}
	if inner := evalJS[float64](t, ctx, `document.getElementById("survey-frame").clientHeight`); inner < said {
		t.Fatalf("the frame's viewport is %vpx, under the page's %vpx", inner, said)
	}
	// The frame shows the whole page: its content is no higher than it.
	shot(t, ctx, "embedded-1-question")

	var frames []*cdp.Node
	if err := chromedp.Run(ctx, chromedp.Nodes("#survey-frame", &frames, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	inFrame := chromedp.FromNode(frames[0])
	if err := chromedp.Run(ctx,
		chromedp.WaitVisible("textarea", chromedp.ByQuery, inFrame),
		chromedp.SendKeys("textarea", "A friend's link", chromedp.ByQuery, inFrame),
		chromedp.Click("#submit", chromedp.ByQuery, inFrame),
		chromedp.WaitVisible("#thanks", chromedp.ByQuery, inFrame),
	); err != nil {
		t.Fatalf("answering in the frame: %v", err)
	}
	for range 1200 {
		if evalJS[string](t, ctx, `document.title`) == "submitted" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	shot(t, ctx, "embedded-2-thanks")
	var submitted []map[string]any
	for _, m := range messages(t, ctx) {
		if m["type"] == "survey:submitted" {
			submitted = append(submitted, m)
		}
	}
	if len(submitted) != 1 || len(submitted[0]) != 1 {
		t.Fatalf("the parent got %v, want one {\"type\": \"survey:submitted\"} and nothing else in it", submitted)
	}
	rs := p.responses(t, sv.ID)
	if len(rs) != 1 || fmt.Sprint(rs[0].Answers) == "map[]" {
		t.Fatalf("responses %+v, want the one answered in the frame", rs)
	}
}

// TestBrowserEmbedRefused: with embed_origins naming another site, Chromium
// refuses to render the survey in the parent's frame; the report page
// renders in no frame at all.
func TestBrowserEmbedRefused(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Not here", Language: 4, Elements: []map[string]any{{"type": 2, "title": "Hello?"}},
		Settings: map[string]any{"embed_origins": []string{"https://blog.example.com"}}})
	for _, c := range []struct{ name, path string }{
		{"survey-elsewhere", "/s/" + sv.URLSlug + "/"},
		{"report", "/r/" + sv.ReportCode + "/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			parent := parentSite(t, p.srv.URL+c.path, p.srv.URL)
			ctx := browser(t, true)
			if err := chromedp.Run(ctx, chromedp.Navigate(parent.URL)); err != nil {
				t.Fatal(err)
			}
			var url string
			for range 1200 {
				if url = childFrameURL(t, ctx); strings.HasPrefix(url, "chrome-error:") {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			shot(t, ctx, "embed-refused-"+c.name)
			if !strings.HasPrefix(url, "chrome-error:") {
				t.Fatalf("the frame shows %s; want Chromium's refusal (chrome-error:)", url)
			}
			if msgs := messages(t, ctx); len(msgs) != 0 {
				t.Fatalf("a refused frame sent %v", msgs)
			}
		})
	}
	// The same survey opens as a page of its own.
	ctx := browser(t, true)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, "textarea")
}
