package responses_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestOwnerReadsCompressedAsPlain: the owner's detail and CSV export show
// a response stored compressed exactly as its twin stored plain (an item
// from before compression: storetest.PutPlainResponse), whatever its answers: Persian, emoji and
// quotes, none, variables, a text of 200 KB.
func TestOwnerReadsCompressedAsPlain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	cases := []struct {
		name    string
		answers func(text int64) map[int64]json.RawMessage
		vars    map[string]any
	}{
		{"persian", func(q int64) map[int64]json.RawMessage {
			return map[int64]json.RawMessage{q: str("ارسال سفارش دو روز دیر شد ولی بسته‌بندی خوب بود")}
		}, map[string]any{"city": "تهران"}},
		{"emoji and quotes", func(q int64) map[int64]json.RawMessage {
			return map[int64]json.RawMessage{q: str("👍🏽 \"great\", =1+1\nsecond line 🎉")}
		}, nil},
		{"empty answers", func(int64) map[int64]json.RawMessage { return map[int64]json.RawMessage{} }, map[string]any{}},
		{"variables", func(q int64) map[int64]json.RawMessage { return map[int64]json.RawMessage{q: str("ok")} },
			map[string]any{"city": "Tabriz", "age": json.Number("41")}},
		{"200 KB", func(q int64) map[int64]json.RawMessage {
			return map[int64]json.RawMessage{q: str(strings.Repeat("The checkout page was slow; ", 200<<10/28))}
		}, nil},
	}
	for _, c := range cases {
		sid, text := f.newSurvey(t, c.name)
		at := t0.Add(time.Hour)
		packed, err := storetest.ImportResponses(t.Context(), f.st, []survey.Response{
			{SurveyID: sid, SubmittedAt: at, StartedAt: at.Add(-time.Minute), Answers: c.answers(text), Variables: c.vars}})
		if err != nil {
			t.Fatal(err)
		}
		plain := packed[0]
		if plain.ID, err = f.st.NewID(t.Context(), store.KindResponse); err != nil {
			t.Fatal(err)
		}
		if err := storetest.PutPlainResponse(t.Context(), f.st, plain); err != nil {
			t.Fatal(err)
		}

		a, b := f.do("GET", detailPath(sid, packed[0].ID)), f.do("GET", detailPath(sid, plain.ID))
		if a.code != 200 || b.code != 200 {
			t.Fatalf("%s: detail %v and %v", c.name, a, b)
		}
		id := func(rid int64) string { return fmt.Sprintf(`"id":%d,`, rid) }
		if got, want := strings.Replace(string(a.body), id(packed[0].ID), "", 1), strings.Replace(string(b.body), id(plain.ID), "", 1); got != want {
			t.Errorf("%s: the compressed response's detail\n%.300s\nthe plain one's\n%.300s", c.name, got, want)
		}
		rows := readCSV(t, f.do("GET", listPath(sid)+"?format=csv"))
		if len(rows) != 3 {
			t.Fatalf("%s: %d CSV rows, want a header and 2", c.name, len(rows))
		}
		if !slices.Equal(rows[1][1:], rows[2][1:]) || rows[1][1] == "" {
			t.Errorf("%s: CSV rows differ past their ids:\n%.300q\n%.300q", c.name, rows[1], rows[2])
		}
	}
}
