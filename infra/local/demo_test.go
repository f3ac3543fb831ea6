package main

import "testing"

// TestDemoSurveyOnce: `make run` creates the demo survey on its first run
// and finds the same one on the next (an endpoint that kept its data).
func TestDemoSurveyOnce(t *testing.T) {
	t.Parallel()
	p := newPagesServer(t)
	first, err := demoSurvey(p.api, p.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Elements) != len(everyTypeElements(false, "")) || first.URLSlug == "" || first.ReportCode == "" {
		t.Fatalf("demo survey %+v", first)
	}
	again, err := demoSurvey(p.api, p.srv.URL)
	if err != nil || again.ID != first.ID || again.URLSlug != first.URLSlug || again.ReportCode != first.ReportCode {
		t.Errorf("second run: %+v, %v; want survey %d again", again, err, first.ID)
	}
}
