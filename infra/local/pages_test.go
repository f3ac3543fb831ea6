package main

import (
	"fmt"
	"net/url"
	"testing"

	"surveyservice/shared/survey"
)

// TestPagesPastTheEnd: every page-number paginated route answers a page
// past the last, however large (461168601842738792 made (page-1)*size
// overflow and the activity log panic: a 500), and a page that is not a
// positive integer, 404 {"detail": "Invalid page."} (the catalog's
// contract, section 4, answers a non-integer page 400 on page); page 1
// answers 200 (contract section 3, amended).
func TestPagesPastTheEnd(t *testing.T) {
	t.Parallel()
	c := newContended(t)
	sv := c.survey(t, surveySpec{Name: "Pages", Language: 4})
	if code, body := c.do("POST", fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", sv.ID),
		map[string]any{"codes": []string{"one-code"}}, false); code != 201 {
		t.Fatalf("codes: %d %s", code, body)
	}
	routes := []struct {
		path    string
		garbage int // the answer to a page that is no integer
	}{
		{"/api/activity/", 404},
		{"/api/templates/", 400},
		{fmt.Sprintf("/api/surveys/%d/settings/authentication-codes/", sv.ID), 404},
		{fmt.Sprintf("/api/surveys/%d/settings/phone-numbers/", sv.ID), 404},
		{fmt.Sprintf("/api/v2/surveys/%d/responses/results-table/", sv.ID), 404},
		{fmt.Sprintf("/api/v2/surveys/%d/responses/results-table/?status=partial", sv.ID), 404},
	}
	const invalid = `{"detail":"Invalid page."}`
	pages := []struct {
		page, size string
		want       int // 0: the route's garbage answer
	}{
		{"1", "", 200},
		{"2", "", 404},
		{"5", "1", 404},
		{"461168601842738792", "", 404},
		{"461168601842738792", "100", 404},
		{"9223372036854775807", "100", 404},
		{"99999999999999999999999999", "", 404},
		{fmt.Sprint(survey.MaxPageOffset + 2), "1", 404},
		{"0", "", 404},
		{"-1", "", 404},
		{"-9223372036854775808", "", 404},
		{"abc", "", 0},
		{"1.5", "", 0},
		{"", "", 0},
	}
	for _, rt := range routes {
		for _, p := range pages {
			u, _ := url.Parse(rt.path)
			q := u.Query()
			q.Set("page", p.page)
			if p.size != "" {
				q.Set("page_size", p.size)
			}
			u.RawQuery = q.Encode()
			want := p.want
			if want == 0 {
				want = rt.garbage
			}
			code, body := c.do("GET", u.String(), nil, false)
			if code != want || want == 404 && string(body) != invalid {
				t.Errorf("GET %s: %d %s; want %d", u, code, body, want)
			}
		}
	}
}
