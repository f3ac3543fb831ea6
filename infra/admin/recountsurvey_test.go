package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/functions/pages"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// recountOut is what admin recount --survey prints.
type recountOut struct {
	SurveyID  int64                        `json:"survey_id"`
	DryRun    bool                         `json:"dry_run"`
	Responses int                          `json:"responses"`
	Changes   map[string]store.CountChange `json:"changes"`
}

// TestRecountSurvey: a survey whose counts were damaged (a lost stream:
// the survey item's counts and the report's shards written directly) is
// recounted from its responses, exactly, choice, scale, matrix and
// ranking counts included; --dry-run shows the same differences and
// writes nothing; a second run changes nothing; the report page shows the
// fixed count; a survey with a fresh response is refused.
func TestRecountSurvey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	ctx := t.Context()
	acct := e.createAccount(t, "--email", "recount-survey@example.com", "--plan", "pro")
	fo, err := st.CreateFolder(ctx, acct.AccountID, "home", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: acct.AccountID, FolderID: fo.ID, Name: "s", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	sid := strconv.FormatInt(sv.ID, 10)

	// Seven responses an hour old (two of them spam), spread over the
	// response shards, each with its report attributes and the tally's
	// mark, as a submission leaves them.
	aggs := [][]string{
		{"c_1_1", "s_2_4", "m_3_1_2", "rn_4_1", "rs_4_1:2"},
		{"c_1_1", "s_2_5"},
		{"c_1_2", "m_3_1_2", "m_3_2_1", "rn_4_1", "rs_4_1:1", "rn_4_2", "rs_4_2:2"},
		{"c_1_1"},
		{},
		{"s_2_4", "c_1_2"},
		{"c_1_1", "rn_4_2", "rs_4_2:1"},
	}
	hourAgo := time.Now().Add(-time.Hour)
	ids, err := st.NewIDs(ctx, store.KindResponse, len(aggs))
	if err != nil {
		t.Fatal(err)
	}
	rs := make([]survey.Response, len(aggs))
	for i := range rs {
		rs[i] = survey.Response{ID: ids[i], SurveyID: sv.ID, SubmittedAt: hourAgo, StartedAt: hourAgo, Spam: i == 2 || i == 5}
	}
	if err := storetest.SeedResponses(ctx, st, rs); err != nil {
		t.Fatal(err)
	}
	for i, r := range rs {
		upd := "SET tally = :t"
		vals := map[string]types.AttributeValue{":t": &types.AttributeValueMemberBOOL{Value: true}}
		if len(aggs[i]) > 0 {
			upd += ", agg = :a"
			vals[":a"] = &types.AttributeValueMemberSS{Value: aggs[i]}
		}
		e.update(t, store.ResponsesShardPK(sv.ID, store.ResponseShard(r.ID)), store.ResponseSK(r.ID), upd, vals)
	}
	want := store.SurveyCounts{Responses: 7, Spam: 2, Report: map[string]int64{
		"n": 7, "c_1_1": 4, "c_1_2": 2, "s_2_4": 2, "s_2_5": 1, "m_3_1_2": 2, "m_3_2_1": 1,
		"rn_4_1": 2, "rs_4_1": 3, "rn_4_2": 2, "rs_4_2": 3,
	}}

	// The damage: counts off both ways, one count no response has.
	e.update(t, store.SurveyPK(sv.ID), store.SurveySK, "SET submitted_responses = :n, spam_responses = :s", map[string]types.AttributeValue{
		":n": &types.AttributeValueMemberN{Value: "3"}, ":s": &types.AttributeValueMemberN{Value: "5"},
	})
	if err := storetest.SeedAggregate(ctx, st, sv.ID, 3, map[string]int64{"n": 3, "c_1_1": 9, "c_9_9": 4, "rs_4_1": 1}); err != nil {
		t.Fatal(err)
	}
	damaged, err := st.SurveyCounts(ctx, sv.ID)
	if err != nil {
		t.Fatal(err)
	}

	var dry recountOut
	e.run(t, "recount", "--survey", sid, "--dry-run").ok(t, &dry, "survey_id", "dry_run", "responses", "changes")
	wantChanges := map[string]store.CountChange{
		"submitted_responses": {Before: 3, After: 7}, "spam_responses": {Before: 5, After: 2},
		"report.n": {Before: 3, After: 7}, "report.c_1_1": {Before: 9, After: 4}, "report.c_9_9": {Before: 4, After: 0},
		"report.rs_4_1": {Before: 1, After: 3}, "report.c_1_2": {After: 2}, "report.s_2_4": {After: 2}, "report.s_2_5": {After: 1},
		"report.m_3_1_2": {After: 2}, "report.m_3_2_1": {After: 1}, "report.rn_4_1": {After: 2}, "report.rn_4_2": {After: 2},
		"report.rs_4_2": {After: 3},
	}
	if dry.SurveyID != sv.ID || !dry.DryRun || dry.Responses != 7 || !equalChanges(dry.Changes, wantChanges) {
		t.Errorf("dry run answered %+v, want changes %v", dry, wantChanges)
	}
	if c, err := st.SurveyCounts(ctx, sv.ID); err != nil || !equalCounts(c, damaged) {
		t.Errorf("the dry run wrote: counts %+v, %v; want %+v", c, err, damaged)
	}

	var out recountOut
	e.run(t, "recount", "--survey", sid).ok(t, &out, "survey_id", "dry_run", "responses", "changes")
	if out.DryRun || out.Responses != 7 || !equalChanges(out.Changes, wantChanges) {
		t.Errorf("recount answered %+v", out)
	}
	if c, err := st.SurveyCounts(ctx, sv.ID); err != nil || !equalCounts(c, want) {
		t.Errorf("counts after the recount %+v, %v; want %+v", c, err, want)
	}
	agg, err := st.Aggregates(ctx, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if agg.Responses != 7 || agg.Choices[1][1] != 4 || agg.Choices[9][9] != 0 || agg.Matrix[3][1][2] != 2 ||
		agg.Ranks[4][1] != (store.RankTotal{Count: 2, Sum: 3}) || agg.Ranks[4][2] != (store.RankTotal{Count: 2, Sum: 3}) {
		t.Errorf("the report's aggregates after the recount: %+v", agg)
	}
	got, err := st.Survey(ctx, acct.AccountID, sv.ID)
	if err != nil || got.SubmittedResponses != 7 || got.SpamResponses != 2 {
		t.Errorf("the survey after the recount: %d responses, %d spam, %v", got.SubmittedResponses, got.SpamResponses, err)
	}
	rec := httptest.NewRecorder()
	testenv.Conform(pages.New(pages.Deps{Store: st, Sealer: testenv.Sealer(t), Now: time.Now})).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/r/"+sv.ReportCode+"/", nil))
	// The survey is Persian: its report writes the count in Persian digits.
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "<strong>۷</strong>") {
		t.Errorf("the report page: %d, count 7 not shown: %.400s", rec.Code, rec.Body.String())
	}

	// Twice: nothing left to change.
	out = recountOut{}
	e.run(t, "recount", "--survey", sid).ok(t, &out, "survey_id", "dry_run", "responses", "changes")
	if len(out.Changes) != 0 || out.Responses != 7 {
		t.Errorf("second run answered %+v, want no changes", out)
	}

	// A response submitted a moment ago: the tally may not have applied
	// it, so the survey is refused and nothing written.
	now := time.Now()
	if err := storetest.SeedResponses(ctx, st, []survey.Response{{ID: ids[len(ids)-1] + 1000, SurveyID: sv.ID, SubmittedAt: now, StartedAt: now}}); err != nil {
		t.Fatal(err)
	}
	e.run(t, "recount", "--survey", sid).fails(t, 1, "survey busy", "within the last 10m0s")
	// A dry run looks whenever: it writes nothing (it was refused for
	// 10 minutes after any response).
	dry = recountOut{}
	e.run(t, "recount", "--survey", sid, "--dry-run").ok(t, &dry, "survey_id", "dry_run", "responses", "changes")
	if !dry.DryRun || dry.Responses != 8 {
		t.Errorf("a dry run right after a response answered %+v, want a look at 8 responses", dry)
	}
	if c, err := st.SurveyCounts(ctx, sv.ID); err != nil || !equalCounts(c, want) {
		t.Errorf("counts after the refused recount %+v, %v; want %+v", c, err, want)
	}
	// With a shorter window it is still refused (a second old); the
	// window cannot be set under a minute.
	e.run(t, "recount", "--survey", sid, "--quiet", "1m").fails(t, 1, "survey busy")
	e.run(t, "recount", "--survey", sid, "--quiet", "5s").fails(t, 2, "at least 1m")

	e.run(t, "recount", "--survey", "2147483000").fails(t, 1, "no survey has id 2147483000")
	e.run(t, "recount", "--survey", "x").fails(t, 2, "positive survey id")
	e.run(t, "recount", "--survey", sid, "--account", "1").fails(t, 2, "either --account or --survey")
	e.run(t, "recount", "--account", "1", "--dry-run").fails(t, 2, "go with --survey")
}

// update runs one UpdateItem directly: the damage a test needs.
func (e adminEnv) update(t *testing.T, pk, sk, expr string, vals map[string]types.AttributeValue) {
	t.Helper()
	st := e.store(t)
	_, err := st.Client().UpdateItem(t.Context(), &dynamodb.UpdateItemInput{
		TableName: aws.String(e.table),
		Key: map[string]types.AttributeValue{
			store.AttrPK: &types.AttributeValueMemberS{Value: pk},
			store.AttrSK: &types.AttributeValueMemberS{Value: sk},
		},
		UpdateExpression:          aws.String(expr),
		ExpressionAttributeValues: vals,
	})
	if err != nil {
		t.Fatal(err)
	}
}

func equalChanges(a, b map[string]store.CountChange) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func equalCounts(a, b store.SurveyCounts) bool {
	if a.Responses != b.Responses || a.Spam != b.Spam || len(a.Report) != len(b.Report) {
		return false
	}
	for k, v := range a.Report {
		if b.Report[k] != v {
			return false
		}
	}
	return true
}
