package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"surveyservice/internal/testenv"
)

// click clicks the element the selector names.
func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Click(sel, chromedp.ByQuery)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// TestBrowserEditFromThanks: with edit_response_enabled the thanks page
// offers "Edit your response"; the responder changes the answer there,
// and the report's counts move from the old answer to the new one. The
// appreciation page's button opens its link_url.
func TestBrowserEditFromThanks(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, surveySpec{Name: "edit", Language: 4, Settings: map[string]any{"edit_response_enabled": true}, Elements: []map[string]any{
		{"type": 3, "title": "Tea or coffee?", "choices": choices("Tea", "Coffee")},
		{"type": 9, "title": "Thanks!", "link_active": true, "link_type": 1, "link_url": "https://example.com/next", "link_button_text": "Read more"},
	}})
	q := sv.Elements[0]
	tea, coffee := itemID(q, "choices", 0), itemID(q, "choices", 1)
	counts := func() (int64, int64, int64) {
		testenv.Tally(t) // the report's counts come from the stream
		agg, err := testenv.Store(t).Aggregates(context.Background(), sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		return agg.Responses, agg.Choices[idOf(q)][tea], agg.Choices[idOf(q)][coffee]
	}
	ctx := browser(t, true)
	open(t, ctx, p, sv.URLSlug)
	radio := func(id int64) string { return fmt.Sprintf(`input[name="a%d"][value="%d"]`, idOf(q), id) }
	click(t, ctx, radio(tea))
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	visible(t, ctx, "#edit-response")
	if href := evalJS[string](t, ctx, `document.getElementById("appreciation-link").href + " " + document.getElementById("appreciation-link").textContent`); href != "https://example.com/next Read more" {
		t.Errorf("appreciation link %q", href)
	}
	shot(t, ctx, "edit-thanks")
	checkAxe(t, ctx, "thanks page with its edit link and button")
	if n, a, b := counts(); n != 1 || a != 1 || b != 0 {
		t.Fatalf("report after the response: %d responses, tea %d, coffee %d", n, a, b)
	}
	click(t, ctx, "#edit-response")
	visible(t, ctx, radio(coffee))
	if checked := evalJS[bool](t, ctx, `document.querySelector('`+radio(tea)+`').checked`); !checked {
		t.Errorf("the edit does not show the answer given")
	}
	click(t, ctx, radio(coffee))
	tabTo(t, ctx, "submit")
	visible(t, ctx, "#thanks")
	if n, a, b := counts(); n != 1 || a != 0 || b != 1 {
		t.Fatalf("report after the edit: %d responses, tea %d, coffee %d; want 1, 0, 1", n, a, b)
	}
	var page struct {
		Count   int `json:"count"`
		Results []struct {
			Answers  map[string]any `json:"answers"`
			EditedAt *string        `json:"edited_at"`
		} `json:"results"`
	}
	if err := p.api.call("GET", fmt.Sprintf("/api/surveys/%d/responses/", sv.ID), nil, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Results) != 1 || page.Results[0].EditedAt == nil || fmt.Sprint(page.Results[0].Answers[fmt.Sprint(idOf(q))]) != fmt.Sprintf("[%d]", coffee) {
		t.Fatalf("responses after the edit %+v", page)
	}
}

// TestAppreciationLinkToSurvey: link_type 2 opens the page of another live
// survey of the account; a trashed one shows no button.
func TestAppreciationLinkToSurvey(t *testing.T) {
	p := newPagesServer(t)
	next := p.build(t, oneQuestion("next", nil))
	sv := p.build(t, surveySpec{Name: "linked", Language: 4, Elements: []map[string]any{
		{"type": 2, "title": "Say"},
		{"type": 9, "title": "Thanks!", "link_active": true, "link_type": 2, "link": next.ID},
	}})
	page := func() string {
		resp, err := http.Get(p.srv.URL + "/s/" + sv.URLSlug + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	want := `id="appreciation-link" href="/s/` + next.URLSlug + `/"`
	if body := page(); !strings.Contains(body, want) || !strings.Contains(body, ">Continue</a>") {
		t.Errorf("the page lacks %s", want)
	}
	if err := p.api.call("DELETE", fmt.Sprintf("/api/v2/surveys/%d/", next.ID), nil, nil); err != nil {
		t.Fatal(err)
	}
	if body := page(); strings.Contains(body, "appreciation-link") {
		t.Errorf("a button to a trashed survey")
	}
}

// TestBrowserLocation: on a survey that collects the location the welcome
// page explains why; the browser's position (granted and set through the
// DevTools protocol) is stored with the response. Without permission, a
// survey that requires it refuses the response and says so.
func TestBrowserLocation(t *testing.T) {
	p := newPagesServer(t)
	sv := p.build(t, withWelcome("location", map[string]any{"location_is_active": true, "location_is_required": true,
		"location_description": "We map answers by city."}))
	ctx := browser(t, true)
	grant := func(setting cdpbrowser.PermissionSetting) {
		t.Helper()
		b := chromedp.FromContext(ctx).Browser
		err := cdpbrowser.SetPermission(&cdpbrowser.PermissionDescriptor{Name: "geolocation"}, setting).WithOrigin(p.srv.URL).
			Do(cdp.WithExecutor(ctx, b))
		if err != nil {
			t.Fatalf("permission %s: %v", setting, err)
		}
	}
	if err := chromedp.Run(ctx, emulation.SetGeolocationOverride().WithLatitude(35.6892).WithLongitude(51.389).WithAccuracy(25)); err != nil {
		t.Fatal(err)
	}
	answer := func(word string) {
		t.Helper()
		open(t, ctx, p, sv.URLSlug)
		// Each attempt starts afresh: the page would otherwise resume the
		// refused one (contract section 20).
		if evalJS[bool](t, ctx, `localStorage.length > 0`) {
			evalJS[bool](t, ctx, `localStorage.clear(), true`)
			open(t, ctx, p, sv.URLSlug)
		}
		visible(t, ctx, ".page.welcome")
		if note := evalJS[string](t, ctx, `document.querySelector(".page.welcome .location-note").textContent`); note != "We map answers by city." {
			t.Errorf("location note %q", note)
		}
		tabTo(t, ctx, "next")
		waitPage(t, ctx, "0")
		keys(t, ctx, word)
		tabTo(t, ctx, "submit")
	}

	grant(cdpbrowser.PermissionSettingDenied)
	answer("denied")
	if msg := waitText(t, ctx, `document.getElementById("errors").innerText`); msg != "This survey needs your location." {
		t.Errorf("without the location the page shows %q", msg)
	}
	shot(t, ctx, "location-denied")

	grant(cdpbrowser.PermissionSettingGranted)
	answer("granted")
	visible(t, ctx, "#thanks")
	var page struct {
		Results []struct {
			Location *struct {
				Latitude  float64 `json:"latitude"`
				Longitude float64 `json:"longitude"`
				Accuracy  float64 `json:"accuracy_m"`
			} `json:"location"`
		} `json:"results"`
	}
	if err := p.api.call("GET", fmt.Sprintf("/api/surveys/%d/responses/", sv.ID), nil, &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Results) != 1 || page.Results[0].Location == nil {
		t.Fatalf("responses %+v", page)
	}
	if l := page.Results[0].Location; l.Latitude != 35.6892 || l.Longitude != 51.389 || l.Accuracy != 25 {
		t.Errorf("location %+v", *l)
	}
}
