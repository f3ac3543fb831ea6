package responses_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"surveyservice/internal/testenv"
	"testing"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestSpamFilter: responses a tag_spam survey marked are shown with
// "spam": true; ?spam=false keeps the others and counts them exactly (so
// does ?spam=true, the marked ones), also after a deletion; the CSV and
// the results table carry a spam column.
func TestSpamFilter(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid, text := f.newSurvey(t, "Spam")
	var ids []int64
	for i := range 4 {
		answer, _ := json.Marshal(fmt.Sprintf("answer %d", i))
		done, err := f.st.Submit(t.Context(), store.Submission{
			Response: survey.Response{SurveyID: sid, StartedAt: t0, Answers: map[int64]json.RawMessage{text: answer}},
			KeyHash:  fmt.Sprintf("%064d", i), BodyHash: "b", Responder: "0123456789abcdef0123456789abcdef", TagSpam: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, done.ID)
	}
	type page struct {
		Count   int64
		Results []struct {
			ID   int64
			Spam bool
		}
	}
	check := func(query string, count int64, results int) {
		t.Helper()
		testenv.Tally(t) // the counts come from the stream
		r := f.do("GET", listPath(sid)+query)
		p := decode[page](t, r)
		if p.Count != count || len(p.Results) != results {
			t.Errorf("%s: count %d, %d results; want %d and %d (%s)", query, p.Count, len(p.Results), count, results, r)
		}
	}
	check("", 4, 4)
	check("?spam=false", 1, 1)
	check("?spam=true", 3, 3)
	p := decode[page](t, f.do("GET", listPath(sid)+"?spam=false"))
	if p.Results[0].ID != ids[0] || p.Results[0].Spam {
		t.Errorf("the first response %+v, want %d unmarked", p.Results[0], ids[0])
	}
	if r := f.do("GET", listPath(sid)+"?spam=maybe"); r.code != 400 || string(r.body) != `{"spam":["Must be a valid boolean."]}` {
		t.Errorf("spam=maybe: %s", r)
	}
	if r := f.do("DELETE", detailPath(sid, ids[3])); r.code != 204 {
		t.Fatalf("delete: %s", r)
	}
	check("?spam=false", 1, 1)
	check("?spam=true", 2, 2)
	csv := f.do("GET", listPath(sid)+"?format=csv&spam=true")
	if !strings.Contains(string(csv.body), "duration_seconds,spam,") || strings.Count(string(csv.body), ",true,") != 2 {
		t.Errorf("CSV %s", csv)
	}
	tb := f.do("GET", tablePath(sid)+"?spam=false")
	if !strings.Contains(string(tb.body), `"responders_count":1`) || len(decode[table](t, tb).Body) != 1 {
		t.Errorf("results table %s", tb)
	}
}
