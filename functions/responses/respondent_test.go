package responses_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestRespondentColumns: on a survey whose responders sign in (contract
// section 18) the owner's detail and list carry each response's
// respondent (null without sign-in), and the CSV and the results table
// gain email and phone columns, under hidden_responder_details too; a
// survey without sign-in has neither column.
func TestRespondentColumns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	sid, text := f.newSurvey(t, "Signed in")
	if err := f.st.UpdateSettings(ctx, f.acct.ID, sid, store.SettingsUpdate{Set: map[string]any{
		"service_auth": true, "hidden_responder_details": true,
	}}); err != nil {
		t.Fatal(err)
	}
	answer, _ := json.Marshal("yes")
	rs, err := storetest.ImportResponses(ctx, f.st, []survey.Response{
		{SurveyID: sid, SubmittedAt: t0, StartedAt: t0.Add(-time.Minute), Answers: map[int64]json.RawMessage{text: answer},
			Respondent: &survey.Respondent{Email: "ana@example.com", Phone: "+989121234567"}},
		{SurveyID: sid, SubmittedAt: t0.Add(time.Second), StartedAt: t0.Add(-time.Minute), Answers: map[int64]json.RawMessage{text: answer}},
	})
	if err != nil {
		t.Fatal(err)
	}
	detail := f.do("GET", detailPath(sid, rs[0].ID))
	var v map[string]json.RawMessage
	if err := json.Unmarshal(detail.body, &v); err != nil || string(v["respondent"]) != `{"email":"ana@example.com","phone":"+989121234567"}` {
		t.Errorf("detail respondent %s (%v): %s", v["respondent"], err, detail)
	}
	if err := json.Unmarshal(f.do("GET", detailPath(sid, rs[1].ID)).body, &v); err != nil || string(v["respondent"]) != "null" {
		t.Errorf("detail without sign-in: respondent %s", v["respondent"])
	}
	list := decode[page](t, f.do("GET", listPath(sid)))
	found := 0
	for _, r := range list.Results {
		if r.Respondent != nil && r.Respondent.Email == "ana@example.com" {
			found++
		}
	}
	if found != 1 {
		t.Errorf("the list carries %d respondents, want 1", found)
	}

	rows := readCSV(t, f.do("GET", listPath(sid)+"?format=csv"))
	if want := []string{"id", "submitted_at", "duration_seconds", "spam", "email", "phone"}; !slices.Equal(rows[0][:6], want) {
		t.Fatalf("CSV header %q, want it to start %q", rows[0], want)
	}
	cells := map[string][]string{}
	for _, row := range rows[1:] {
		cells[row[0]] = row[4:6]
	}
	if got := cells[strconv.FormatInt(rs[0].ID, 10)]; !slices.Equal(got, []string{"ana@example.com", "+989121234567"}) {
		t.Errorf("CSV cells %q", got)
	}
	if got := cells[strconv.FormatInt(rs[1].ID, 10)]; !slices.Equal(got, []string{"", ""}) {
		t.Errorf("CSV cells without sign-in %q", got)
	}

	var table struct {
		Header []struct {
			Title   string `json:"title"`
			ColType int    `json:"col_type"`
		} `json:"header"`
		Body []struct {
			ResponderID int64 `json:"responder_id"`
			Data        []any `json:"data"`
		} `json:"body"`
	}
	tr := f.do("GET", tablePath(sid))
	if err := json.Unmarshal(tr.body, &table); err != nil || len(table.Header) < 4 {
		t.Fatalf("results table %s: %v", tr, err)
	}
	if table.Header[2].Title != "email" || table.Header[3].Title != "phone" {
		t.Errorf("results table header %+v", table.Header)
	}
	for _, row := range table.Body {
		if row.ResponderID == rs[0].ID && (len(row.Data) < 4 || row.Data[2] != "ana@example.com" || row.Data[3] != "+989121234567") {
			t.Errorf("results table row %v", row.Data)
		}
	}

	plain, _ := f.newSurvey(t, "Open")
	if rows := readCSV(t, f.do("GET", listPath(plain)+"?format=csv")); slices.Contains(rows[0], "email") {
		t.Errorf("CSV header without sign-in %q", rows[0])
	}

	// Sign-in turned off: the responses that recorded it keep the columns.
	if err := f.st.UpdateSettings(ctx, f.acct.ID, sid, store.SettingsUpdate{Set: map[string]any{"service_auth": false}}); err != nil {
		t.Fatal(err)
	}
	if rows := readCSV(t, f.do("GET", listPath(sid)+"?format=csv")); !slices.Contains(rows[0], "email") || !slices.Contains(rows[0], "phone") {
		t.Errorf("CSV header once sign-in is off %q, want the columns of its responses", rows[0])
	}
}
