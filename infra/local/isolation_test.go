package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// tenant is one account's key and the ids of what it owns.
type tenant struct {
	key string
	ids map[string]int64
	aid int64
}

// isolationRoutes is every route that takes an id or names another
// account's object, answered as the intruder with the victim's ids in place
// of {folder}, {survey}. {own_folder}, {own_survey} are the intruder's own.
// Later issues add their routes here.
var isolationRoutes = []struct {
	method, path, body string
	want               int
	wantBody           string // exact when set
}{
	{"GET", "/api/folders/{folder}/", "", 404, `{"detail":"Not found."}`},
	{"PUT", "/api/folders/{folder}/", `{"name":"taken over"}`, 404, `{"detail":"Not found."}`},
	{"PATCH", "/api/folders/{folder}/", `{"name":"taken over","order":0}`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/folders/{folder}/", "", 404, `{"detail":"Not found."}`},
	{"OPTIONS", "/api/folders/{folder}/", "", 200, ""}, // metadata only: says nothing of the folder
	{"GET", "/api/v2/surveys/{survey}/", "", 404, `{"detail":"Not found."}`},
	{"HEAD", "/api/v2/surveys/{survey}/", "", 404, ""},
	{"PATCH", "/api/v2/surveys/{survey}/", `{"name":"taken over"}`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/v2/surveys/{survey}/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/v2/surveys/{survey}/restore/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/v2/surveys/{survey}/restore/", `{"folder_id":{own_folder}}`, 404, `{"detail":"Not found."}`},
	{"POST", "/api/v2/surveys/", `{"name":"planted","folder_id":{folder}}`, 400, `{"folder_id":["Invalid pk \"{folder}\" - object does not exist."]}`},
	{"PATCH", "/api/v2/surveys/{own_survey}/", `{"folder_id":{folder}}`, 400, `{"folder_id":["Invalid pk \"{folder}\" - object does not exist."]}`},
	// elements
	{"GET", "/api/v2/surveys/{survey}/questions/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/v2/surveys/{survey}/questions/", `{"title":"planted","type":2}`, 404, `{"detail":"Not found."}`},
	{"GET", "/api/v2/surveys/{survey}/questions/{question}/", "", 404, `{"detail":"Not found."}`},
	{"PATCH", "/api/v2/surveys/{survey}/questions/{question}/", `{"title":"taken over"}`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/v2/surveys/{survey}/questions/{question}/", "", 404, `{"detail":"Not found."}`},
	// the victim's element named from the intruder's own survey
	{"GET", "/api/v2/surveys/{own_survey}/questions/{question}/", "", 404, `{"detail":"Not found."}`},
	{"PATCH", "/api/v2/surveys/{own_survey}/questions/{question}/", `{"title":"taken over"}`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/v2/surveys/{own_survey}/questions/{question}/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/v2/surveys/{own_survey}/questions/", `{"title":"x","type":2,"prior_question":{question}}`, 400, `{"prior_question":["Invalid pk \"{question}\" - object does not exist."]}`},
	{"POST", "/api/v2/surveys/{own_survey}/questions/", `{"title":"x","type":2,"related_group":{group}}`, 400, `{"related_group":["Invalid pk \"{group}\" - object does not exist."]}`},
	// settings and codes
	{"GET", "/api/surveys/{survey}/settings/", "", 404, `{"detail":"Not found."}`},
	{"PATCH", "/api/surveys/{survey}/settings/", `{"hide_progressbar":true,"survey":{"name":"taken over"}}`, 404, `{"detail":"Not found."}`},
	{"GET", "/api/surveys/{survey}/settings/authentication-codes/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/surveys/{survey}/settings/authentication-codes/", `["planted"]`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/surveys/{survey}/settings/authentication-codes/", `["PRIVATE-CODE"]`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/surveys/{survey}/settings/authentication-codes/", "", 404, `{"detail":"Not found."}`},
	// variables and links
	{"GET", "/api/surveys/{survey}/variables/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/surveys/{survey}/variables/", `{"name":"planted","variable_source":0}`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/surveys/{survey}/variables/{variable}/", "", 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/surveys/{own_survey}/variables/{variable}/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/surveys/{survey}/variables/hashes/", `{"values":[{"private_var":"x"}]}`, 404, `{"detail":"Not found."}`},
	// webhooks, in both shapes, and their deliveries
	{"GET", "/api/surveys/{survey}/webhooks/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/surveys/{survey}/webhooks/", `{"url":"https://93.184.216.34/planted"}`, 404, `{"detail":"Not found."}`},
	{"GET", "/api/surveys/{survey}/webhooks/{webhook}/", "", 404, `{"detail":"Not found."}`},
	{"PATCH", "/api/surveys/{survey}/webhooks/{webhook}/", `{"url":"https://93.184.216.34/taken-over"}`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/surveys/{survey}/webhooks/{webhook}/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/surveys/{own_survey}/webhooks/{webhook}/", "", 404, `{"detail":"Not found."}`},
	{"PATCH", "/api/surveys/{own_survey}/webhooks/{webhook}/", `{"active":false}`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/surveys/{own_survey}/webhooks/{webhook}/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/surveys/{survey}/webhooks/{webhook}/deliveries/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/surveys/{own_survey}/webhooks/{webhook}/deliveries/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/surveys/{survey}/webhooks/{webhook}/deliveries/1795302000000000-42/retry/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/v2/surveys/{survey}/notifications/", "", 404, `{"detail":"Not found."}`},
	{"POST", "/api/v2/surveys/{survey}/notifications/", `{"webhook_endpoint":"https://93.184.216.34/planted"}`, 404, `{"detail":"Not found."}`},
	{"GET", "/api/v2/surveys/{survey}/notifications/{webhook}/", "", 404, `{"detail":"Not found."}`},
	{"PATCH", "/api/v2/surveys/{survey}/notifications/{webhook}/", `{"enabled":false}`, 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/v2/surveys/{survey}/notifications/{webhook}/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/v2/surveys/{own_survey}/notifications/{webhook}/", "", 404, `{"detail":"Not found."}`},
	// responses
	{"GET", "/api/surveys/{survey}/responses/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/surveys/{survey}/responses/?format=csv", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/surveys/{survey}/responses/?submitted_after=2026-01-01", "", 404, `{"detail":"Not found."}`},
	{"HEAD", "/api/surveys/{survey}/responses/", "", 404, ""},
	{"GET", "/api/surveys/{survey}/responses/{response}/", "", 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/surveys/{survey}/responses/{response}/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/surveys/{own_survey}/responses/{response}/", "", 404, `{"detail":"Not found."}`},
	{"DELETE", "/api/surveys/{own_survey}/responses/{response}/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/v2/surveys/{survey}/responses/results-table/", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/v2/surveys/{survey}/responses/results-table/?page=2&sort=asc", "", 404, `{"detail":"Not found."}`},
	{"GET", "/api/v2/surveys/{survey}/responses/export/", "", 404, `{"detail":"Not found."}`},
}

func fill(s string, victim, intruder tenant) string {
	for name, id := range victim.ids {
		s = strings.ReplaceAll(s, "{"+name+"}", itoa(id))
	}
	for name, id := range intruder.ids {
		s = strings.ReplaceAll(s, "{own_"+name+"}", itoa(id))
	}
	return s
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// newTenant makes an account owning one folder with one survey.
func newTenant(t *testing.T) tenant {
	t.Helper()
	st := testenv.Store(t)
	ctx := context.Background()
	a, key := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(ctx, a.ID, "Private folder", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "Private survey", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddCodes(ctx, a.ID, sv.ID, []string{"PRIVATE-CODE"}); err != nil {
		t.Fatal(err)
	}
	vars, err := st.CreateVariables(ctx, a.ID, sv.ID, nil, 0, []survey.Variable{{Name: "private_var", Type: survey.VariableString}})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{"folder": f.ID, "survey": sv.ID, "variable": vars[0].ID}
	wid, err := st.NewID(ctx, store.KindWebhook)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ChangeWebhooks(ctx, a.ID, sv.ID, func(hooks []survey.Webhook) ([]survey.Webhook, error) {
		return append(hooks, survey.Webhook{ID: wid, SurveyID: sv.ID, URL: "https://93.184.216.34/Private-hook",
			Events: []string{survey.EventResponseSubmitted}, Active: true, Created: time.Now().UTC(), SealedSecret: "sealed"}), nil
	}); err != nil {
		t.Fatal(err)
	}
	ids["webhook"] = wid
	for _, kind := range []survey.ElementType{survey.TypeText, survey.TypeGroup} {
		e := survey.NewElement(kind)
		e.Title = "Private question"
		ch, err := st.CreateElement(ctx, a.ID, sv.ID, e, survey.Placement{})
		if err != nil {
			t.Fatal(err)
		}
		ids[map[survey.ElementType]string{survey.TypeText: "question", survey.TypeGroup: "group"}[kind]] = ch.Element.ID
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	rs, err := storetest.ImportResponses(ctx, st, []survey.Response{{SurveyID: sv.ID, SubmittedAt: at, StartedAt: at.Add(-time.Minute),
		Answers: map[int64]json.RawMessage{ids["question"]: json.RawMessage(`"Private answer"`)}, Variables: map[string]any{"private_var": "Private value"},
		Code: "PRIVATE-CODE"}})
	if err != nil {
		t.Fatal(err)
	}
	ids["response"] = rs[0].ID
	return tenant{key: key, ids: ids, aid: a.ID}
}

func serveAs(h http.Handler, key, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "API-Key "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// snapshot is everything the victim can read of its own data.
func snapshot(t *testing.T, h http.Handler, victim tenant) []byte {
	t.Helper()
	var out bytes.Buffer
	sid := itoa(victim.ids["survey"])
	for _, path := range []string{"/api/folders/", "/api/v2/surveys/" + sid + "/", "/api/v2/surveys/" + sid + "/questions/",
		"/api/surveys/" + sid + "/settings/", "/api/surveys/" + sid + "/settings/authentication-codes/",
		"/api/surveys/" + sid + "/variables/", "/api/surveys/" + sid + "/webhooks/", "/api/surveys/" + sid + "/responses/", "/api/v2/surveys/" + sid + "/responses/results-table/"} {
		rec := serveAs(h, victim.key, "GET", path, "")
		if rec.Code != 200 {
			t.Fatalf("victim GET %s = %d", path, rec.Code)
		}
		b, _ := io.ReadAll(rec.Body)
		out.Write(b)
	}
	return out.Bytes()
}

// TestTenantIsolation: for every route, another account's id answers as a
// missing one would (404, or 400 on the field that names it), and changes
// nothing of the owner's data.
func TestTenantIsolation(t *testing.T) {
	st := testenv.Store(t)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), exports: testenv.Exports(t)}))
	victim, intruder := newTenant(t), newTenant(t)
	before := snapshot(t, h, victim)
	for _, rt := range isolationRoutes {
		path, body := fill(rt.path, victim, intruder), fill(rt.body, victim, intruder)
		t.Run(rt.method+" "+rt.path+" "+rt.body, func(t *testing.T) {
			rec := serveAs(h, intruder.key, rt.method, path, body)
			if rec.Code != rt.want {
				t.Fatalf("%s %s = %d %s, want %d", rt.method, path, rec.Code, rec.Body, rt.want)
			}
			if want := fill(rt.wantBody, victim, intruder); want != "" && strings.TrimSpace(rec.Body.String()) != want {
				t.Errorf("body %s, want %s", rec.Body, want)
			}
			if strings.Contains(rec.Body.String(), "Private") {
				t.Errorf("the answer leaks the victim's data: %s", rec.Body)
			}
		})
	}
	if after := snapshot(t, h, victim); !bytes.Equal(before, after) {
		t.Errorf("the victim's data changed:\nbefore %s\nafter  %s", before, after)
	}
	rec := serveAs(h, intruder.key, "GET", "/api/folders/", "")
	var folders []struct {
		ID int64 `json:"id"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &folders)
	for _, f := range folders {
		if f.ID == victim.ids["folder"] {
			t.Errorf("the intruder's list holds the victim's folder")
		}
	}
}
