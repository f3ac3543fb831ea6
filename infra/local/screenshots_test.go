package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"surveyservice/internal/testenv"
)

// TestScreenshots makes the pictures the README and docs/local.md show:
// the demo survey's page as a responder sees it, and its public report
// after a few responses, on a desktop screen. `make screenshots` writes
// them to docs/images/ (SCREENSHOTS_OUT); in `make test` they go to the
// browser tests' folder, so the pictures are always ones this code makes.
func TestScreenshots(t *testing.T) {
	out := os.Getenv("SCREENSHOTS_OUT")
	if out == "" {
		out = screenshots(t)
	}
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "Demo: every question type", Language: 4, Elements: everyTypeElements(false, p.srv.URL)})
	id := func(i int) string { return fmt.Sprint(sv.Elements[i]["id"]) }
	choice := func(i, c int) int64 {
		cs := sv.Elements[i]["choices"].([]any)
		return int64(cs[c].(map[string]any)["id"].(float64))
	}
	names := []string{"Sara", "Reza", "Ana", "Leo", "Mina", "Tom", "Yas", "Ali", "Eva"}
	for n, name := range names {
		var session struct {
			Session string `json:"session"`
		}
		if err := p.api.call("POST", "/api/public/surveys/"+sv.URLSlug+"/sessions/", map[string]any{}, &session); err != nil {
			t.Fatal(err)
		}
		answers := map[string]any{
			id(1): name,
			id(2): []int64{choice(2, []int{0, 0, 1, 0, 2, 1, 0, 1, 0}[n])},
			id(3): []int64{choice(3, []int{0, 1, 1, 0, 0, 1, 1, 0, 1}[n]), choice(3, 2)},
			id(4): []int64{choice(4, []int{0, 1, 0, 0, 1, 0, 0, 1, 0}[n])},
			id(6): []int{9, 10, 7, 8, 9, 6, 10, 9, 4}[n],
			id(7): []int{5, 4, 5, 3, 4, 5, 5, 2, 4}[n],
			id(8): choice(8, n%2),
		}
		body, _ := json.Marshal(map[string]any{"session": session.Session, "answers": answers})
		req, _ := http.NewRequest("POST", p.srv.URL+"/api/public/surveys/"+sv.URLSlug+"/responses/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", fmt.Sprintf("screenshot-%d", n))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 201 {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("response %d: %d %s", n, resp.StatusCode, b)
		}
	}
	ctx := tab(t, true, 1280, 800, false)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/s/"+sv.URLSlug+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".page.welcome")
	evalJS[bool](t, ctx, `document.getElementById("next").click(), true`)
	waitPage(t, ctx, "0")
	evalJS[bool](t, ctx, `(() => { const i = document.querySelector(".page:not([hidden]) textarea");
		i.value = "Sara"; i.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	evalJS[bool](t, ctx, `document.getElementById("next").click(), true`)
	waitPage(t, ctx, "1")
	shotTo(t, ctx, filepath.Join(out, "page.png"))
	// The report counts what the tally has counted, seconds after.
	testenv.Tally(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(p.srv.URL+"/r/"+sv.ReportCode+"/")); err != nil {
		t.Fatal(err)
	}
	visible(t, ctx, ".chart")
	shotTo(t, ctx, filepath.Join(out, "report.png"))
}

// shotTo saves a screenshot of the tab's screen to file.
func shotTo(t *testing.T, ctx context.Context, file string) {
	t.Helper()
	var buf []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&buf)); err != nil {
		t.Fatalf("screenshot %s: %v", file, err)
	}
	if err := os.WriteFile(file, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}
