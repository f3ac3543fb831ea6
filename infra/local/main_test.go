package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/functions/templates"
	"surveyservice/infra/seed"
	"surveyservice/internal/localaws"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) {
	conform = testenv.Conform
	testenv.Main(m)
}

// eventStatus is what each fixture in events/ must answer when fed through
// the Lambda entry point, as API Gateway would deliver it.
var eventStatus = map[string]int{
	"templates/list.json":                      200,
	"templates/list-filtered.json":             200,
	"templates/list-bad-page.json":             400,
	"templates/detail.json":                    200,
	"templates/detail-no-slash.json":           200,
	"templates/detail-head.json":               200,
	"templates/detail-options.json":            200,
	"templates/detail-browsable.json":          200,
	"templates/detail-post.json":               405,
	"templates/detail-missing.json":            404,
	"templates/detail-bad-encoding.json":       404,
	"account/whoami.json":                      200,
	"account/whoami-post.json":                 200,
	"account/whoami-no-key.json":               401,
	"account/not-found.json":                   404,
	"folders/list.json":                        200,
	"folders/create.json":                      201,
	"folders/create-invalid.json":              400,
	"folders/get.json":                         200,
	"folders/put.json":                         200,
	"folders/patch.json":                       200,
	"folders/delete.json":                      204,
	"folders/get-bad-id.json":                  404,
	"surveys/create.json":                      201,
	"surveys/get.json":                         200,
	"surveys/patch.json":                       200,
	"surveys/delete.json":                      204,
	"surveys/restore.json":                     200,
	"surveys/copy.json":                        201,
	"surveys/get-missing.json":                 404,
	"elements/list.json":                       200,
	"elements/create.json":                     201,
	"elements/create-welcome.json":             201,
	"elements/create-invalid.json":             400,
	"elements/get.json":                        200,
	"elements/patch.json":                      200,
	"elements/delete.json":                     204,
	"settings/get.json":                        200,
	"settings/patch.json":                      200,
	"settings/patch-invalid.json":              400,
	"settings/codes-list.json":                 200,
	"settings/codes-add.json":                  201,
	"settings/codes-delete.json":               204,
	"responders/authenticate.json":             200,
	"pages/survey.json":                        200,
	"pages/oembed.json":                        200,
	"pages/report-missing.json":                404,
	"pages/asset-missing.json":                 404,
	"responders/authenticate-refused.json":     403,
	"responders/link-values.json":              200,
	"responders/link-values-invalid.json":      400,
	"responders/survey.json":                   200,
	"responders/survey-head.json":              200,
	"responders/session.json":                  201,
	"responders/session-refused.json":          403,
	"responders/response.json":                 201,
	"responders/response-invalid-session.json": 400,
	"variables/list.json":                      200,
	"variables/create.json":                    201,
	"variables/create-invalid.json":            400,
	"variables/delete.json":                    204,
	"variables/hashes.json":                    200,
	"variables/hashes-invalid.json":            400,
	"webhooks/list.json":                       200,
	"webhooks/create.json":                     201,
	"webhooks/create-internal.json":            400,
	"webhooks/get.json":                        200,
	"webhooks/patch.json":                      200,
	"webhooks/delete.json":                     204,
	"webhooks/deliveries.json":                 200,
	"webhooks/notifications-list.json":         200,
	"webhooks/notifications-create.json":       201,
	"webhooks/notifications-get.json":          200,
	"responses/list.json":                      200,
	"responses/list-csv.json":                  200,
	"responses/list-bad-cursor.json":           400,
	"responses/get.json":                       200,
	"responses/get-missing.json":               404,
	"responses/delete.json":                    204,
	"responses/results-table.json":             200,
	"responses/export.json":                    200,
}

func TestEventsThroughLambdaEntryPoint(t *testing.T) {
	st := testenv.Store(t)
	if _, err := st.ImportTemplates(context.Background(), seed.Templates); err != nil {
		t.Fatal(err)
	}
	acct, key := testenv.NewAccount(t, survey.PlanEnterprise)
	ids := fixtureIDs(t, acct.ID)
	// Each fixture goes to the Lambda entry point of the function its
	// routeKey targets (TestEventsMatchTheRoutes holds the keys to the routes).
	entries := map[string]gateway.Handler{}
	for name, rt := range routers(st, config{
		templates: templates.Deps{MediaURL: "https://media.example.com"},
		surveyURL: "https://survey.example.com",
		sealer:    testenv.Sealer(t),
		exports:   testenv.Exports(t),
	}) {
		entries[name] = gateway.New(api.ServeAt("https://abc123defg.execute-api.us-east-1.amazonaws.com", rt)) // API_BASE_URL, as deployed
	}
	targets := map[string]string{}
	for _, r := range gatewayRoutes.Routes() {
		targets[r.Key()] = r.Target
	}

	files, err := filepath.Glob("../../events/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	// The sweeper's and the retrier's events are schedules, not HTTP
	// requests: their own tests (functions/*/lambda) replay them.
	// Nor are the stream's and the queue's (TestStreamAndQueueEvents).
	files = slices.DeleteFunc(files, func(f string) bool {
		return strings.Contains(f, "/sweeper/") || strings.Contains(f, "/retrier/") || strings.Contains(f, "/dispatch/") || strings.Contains(f, "/deliver/")
	})
	if len(files) != len(eventStatus) {
		t.Errorf("events/ holds %d fixtures, this test knows %d: add the new ones to eventStatus", len(files), len(eventStatus))
	}
	for _, file := range files {
		name := strings.TrimPrefix(filepath.ToSlash(file), "../../events/")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(string(data), "{{API_KEY}}", key)
			for name, id := range ids {
				text = strings.ReplaceAll(text, "{{"+name+"}}", id)
			}
			data = []byte(text)
			var ev events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Fatalf("not an API Gateway v2 event: %v", err)
			}
			if ev.Version != "2.0" || ev.RequestContext.HTTP.Method == "" {
				t.Fatalf("not a payload 2.0 event")
			}
			entry, ok := entries[targets[ev.RouteKey]]
			if !ok {
				t.Fatalf("routeKey %q is no route of template.yaml", ev.RouteKey)
			}
			resp, err := entry(context.Background(), ev)
			if err != nil {
				t.Fatalf("invocation error: %v", err)
			}
			want, ok := eventStatus[name]
			if !ok {
				t.Fatalf("no expected status for %s", name)
			}
			if resp.StatusCode != want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, want, resp.Body)
			}
			if ev.RequestContext.HTTP.Method == "HEAD" && resp.Body != "" {
				t.Errorf("HEAD answered a body")
			}
			if name == "responses/list-csv.json" && (resp.IsBase64Encoded || !strings.HasPrefix(resp.Body, "\uFEFFid,submitted_at,") ||
				resp.Headers["Content-Type"] != "text/csv; charset=utf-8" || !strings.HasPrefix(resp.Headers["Link"], "<https://abc123defg.execute-api.us-east-1.amazonaws.com/api/surveys/")) {
				t.Errorf("a CSV page through API Gateway: base64 %v, headers %v, body %.80q", resp.IsBase64Encoded, resp.Headers, resp.Body)
			}
			if name == "account/whoami.json" && !strings.Contains(resp.Body, acct.Email) {
				t.Errorf("whoami = %s, want %s", resp.Body, acct.Email)
			}
			if resp.Headers["X-Request-Id"] == "" {
				t.Errorf("no X-Request-Id header: %v", resp.Headers)
			}
		})
	}
}

// fixtureIDs makes what the fixtures' placeholders name, in the account,
// and answers each placeholder's value.
func fixtureIDs(t *testing.T, aid int64) map[string]string {
	t.Helper()
	st := testenv.Store(t)
	ctx := context.Background()
	ids := map[string]int64{}
	for _, name := range []string{"FOLDER_ID", "DOOMED_FOLDER_ID"} {
		f, err := st.CreateFolder(ctx, aid, "Fixture "+name, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = f.ID
	}
	for _, name := range []string{"SURVEY_ID", "DOOMED_SURVEY_ID", "TRASHED_SURVEY_ID"} {
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: aid, FolderID: ids["FOLDER_ID"], Name: "Fixture " + name, Language: 4, Theme: survey.DefaultTheme()})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = sv.ID
	}
	if err := st.TrashSurvey(ctx, aid, ids["TRASHED_SURVEY_ID"]); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"QUESTION_ID", "DOOMED_QUESTION_ID"} {
		e := survey.NewElement(survey.TypeText)
		e.Title = "Fixture " + name
		ch, err := st.CreateElement(ctx, aid, ids["SURVEY_ID"], e, survey.Placement{})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = ch.Element.ID
	}
	main, err := st.SurveyCollection(ctx, aid, ids["SURVEY_ID"])
	if err != nil {
		t.Fatal(err)
	}
	if err := st.UpdateSettings(ctx, aid, ids["SURVEY_ID"], store.SettingsUpdate{Set: map[string]any{"code_auth": true}}); err != nil {
		t.Fatal(err)
	}
	if err := st.AddCodes(ctx, aid, ids["SURVEY_ID"], []string{"A1B2C3"}); err != nil {
		t.Fatal(err)
	}
	vars, err := st.CreateVariables(ctx, aid, ids["SURVEY_ID"], nil, 0, []survey.Variable{
		{Name: "city", Type: survey.VariableString}, {Name: "doomed", Type: survey.VariableString}})
	if err != nil {
		t.Fatal(err)
	}
	ids["DOOMED_VARIABLE_ID"] = vars[1].ID
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	answer := json.RawMessage(`"Fine"`)
	rs, err := storetest.ImportResponses(ctx, st, []survey.Response{
		{SurveyID: ids["SURVEY_ID"], SubmittedAt: at, StartedAt: at.Add(-time.Minute), Answers: map[int64]json.RawMessage{ids["QUESTION_ID"]: answer},
			Variables: map[string]any{"city": "Tabriz"}, Code: "A1B2C3"},
		{SurveyID: ids["SURVEY_ID"], SubmittedAt: at.Add(time.Second), StartedAt: at, Answers: map[int64]json.RawMessage{}},
		{SurveyID: ids["SURVEY_ID"], SubmittedAt: at.Add(2 * time.Second), StartedAt: at, Answers: map[int64]json.RawMessage{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ids["RESPONSE_ID"], ids["DOOMED_RESPONSE_ID"] = rs[0].ID, rs[1].ID
	tokens, err := testenv.Sealer(t).Seal(ctx, ids["SURVEY_ID"], []links.Payload{{Values: []links.Value{{Name: "city", Kind: links.KindString, Str: "Tabriz"}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"WEBHOOK_ID", "DOOMED_WEBHOOK_ID"} {
		wid, err := st.NewID(ctx, store.KindWebhook)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.ChangeWebhooks(ctx, aid, ids["SURVEY_ID"], func(hooks []survey.Webhook) ([]survey.Webhook, error) {
			return append(hooks, survey.Webhook{ID: wid, SurveyID: ids["SURVEY_ID"], URL: "https://93.184.216.34/" + name,
				Events: []string{survey.EventResponseSubmitted}, Active: true, Created: time.Now().UTC(), SealedSecret: "sealed"}), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = wid
	}
	// A session for the survey, as POST .../sessions/ seals one.
	session, err := testenv.Sealer(t).SealFor(ctx, links.PurposeSession, ids["SURVEY_ID"],
		responding.Session{StartedAt: time.Now(), Code: "A1B2C3"}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"SURVEY_SLUG": main.Survey.URLSlug, "LINK_TOKEN": tokens[0], "SESSION": session, "SURVEY_PAD": fmt.Sprintf("%020d", ids["SURVEY_ID"])}
	for name, id := range ids {
		out[name] = fmt.Sprint(id)
	}
	return out
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	freePorts.Store(port, true)
	return port
}

// freePorts are the ports freePort chose. A port is free when freePort
// answers it, but until run binds it any other socket on the machine may
// take it (an outgoing connection's ephemeral port: a whole make test
// opens thousands); startRun then chooses another.
var freePorts sync.Map

// startLocal runs `make run`'s run() and returns the API key it printed
// and the base URL, once it prints that it listens. It stops with the test.
func startLocal(t *testing.T, env map[string]string) (key, base string) {
	t.Helper()
	key, base, stop := startStoppable(t, env)
	t.Cleanup(stop)
	return key, base
}

// startStoppable is startLocal with the Ctrl-C in the caller's hands: stop
// ends the run and waits for it (at most once; later calls do nothing).
func startStoppable(t *testing.T, env map[string]string) (key, base string, stop func()) {
	t.Helper()
	r := startRun(t, env)
	return r.key, r.base, r.stop
}

// running is a started run: what its banner printed, up to "Listening on".
type running struct {
	key, base string
	banner    []string
	stop      func()
}

func startRun(t *testing.T, env map[string]string) running {
	t.Helper()
	for attempt := 1; ; attempt++ {
		r, err := tryRun(t, env)
		if err == nil {
			return r
		}
		// A port freePort chose and another socket took meanwhile: choose
		// again (env["PORT"] changes for the caller's later runs too).
		if _, chosen := freePorts.Load(env["PORT"]); chosen && errors.Is(err, syscall.EADDRINUSE) && attempt < 5 {
			t.Logf("port %s was taken before run bound it (%v); choosing another", env["PORT"], err)
			env["PORT"] = freePort(t)
			continue
		}
		t.Fatalf("run ended before listening: %v", err)
	}
}

// tryRun starts run and waits for its banner's "Listening on": the run,
// or the error it ended with before listening.
func tryRun(t *testing.T, env map[string]string) (r running, _ error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, func(k string) string { return env[k] }, pw, io.Discard)
		pw.Close()
	}()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("run returned %v after Ctrl-C", err)
				}
			case <-time.After(90 * time.Second):
				t.Error("run did not stop within 90 s of Ctrl-C")
			}
		})
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				err := <-done
				cancel()
				if err == nil {
					err = errors.New("run returned before listening, without an error")
				}
				return running{}, err
			}
			r.banner = append(r.banner, line)
			if k, found := strings.CutPrefix(line, "API key: "); found {
				r.key = k
			}
			if b, found := strings.CutPrefix(line, "Listening on "); found {
				go func() {
					for range lines {
					}
				}()
				r.base = b
				return r, nil
			}
		case <-timeout:
			r.stop()
			t.Fatal("run did not print its address within 2 minutes")
		}
	}
}

func getJSON(t *testing.T, url, key string, out any) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("Authorization", "API-Key "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// TestRunOnAnEndpoint is `make run` with AWS_ENDPOINT_URL set: it uses
// that endpoint, creates what is missing, and runs twice on the same
// table. It makes no sample data there (contract section 9, amended): no
// demo account, no sample catalog, no catalog account, so that a client
// that brings its own emulators can make the one catalog account with the
// admin command (before, make run made them all and printed a demo key).
func TestRunOnAnEndpoint(t *testing.T) {
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1",
		"TABLE_NAME": "local-run-test", "PORT": freePort(t), "HOME": os.Getenv("HOME"),
	}
	ctx := t.Context()
	st, err := localaws.OpenStore(ctx, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 2; round++ {
		env["PORT"] = freePort(t)
		key, base := startLocal(t, env)
		if key != "" {
			t.Errorf("round %d: printed a demo key %q on an endpoint of the caller's own", round, key)
		}
		if base != "http://127.0.0.1:"+env["PORT"] {
			t.Errorf("listening on %s", base)
		}
		if _, err := st.AccountByEmail(ctx, demoEmail); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("round %d: the demo account: %v, want none", round, err)
		}
		if id, err := st.CatalogAccount(ctx); !errors.Is(err, survey.ErrNotFound) {
			t.Errorf("round %d: catalog account %d, %v; want none", round, id, err)
		}
		var page struct{ Count int }
		if code := getJSON(t, base+"/api/templates/", "", &page); code != 200 || page.Count != 0 {
			t.Errorf("round %d: catalog = %d with %d templates, want none", round, code, page.Count)
		}
		owner := accountOn(t, env)
		var who map[string]any
		if code := getJSON(t, base+"/api/whoami/", owner, &who); code != 200 || who["authenticated"] != true {
			t.Errorf("round %d: whoami of an account made beside the run = %d %v", round, code, who)
		}
		var notFound map[string]string
		if code := getJSON(t, base+"/api/nothing/", "", &notFound); code != 404 || notFound["detail"] != "Not found." {
			t.Errorf("round %d: unknown path = %d %v", round, code, notFound)
		}
	}
}

// accountOn makes an enterprise account on the table env names, as the
// admin command makes one beside `make run` on an endpoint of one's own,
// and returns its API key.
func accountOn(t *testing.T, env map[string]string) string {
	t.Helper()
	st, err := localaws.OpenStore(t.Context(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	acct, err := st.CreateAccount(t.Context(), survey.Account{Email: fmt.Sprintf("owner-%d@example.com", time.Now().UnixNano()), Plan: survey.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	key, err := st.CreateKey(t.Context(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// TestRunStartsItsOwnEmulator is `make run` for a new user: no endpoint
// configured, so it starts moto_server itself and stops it on Ctrl-C.
func TestRunStartsItsOwnEmulator(t *testing.T) {
	t.Parallel()
	testenv.Store(t) // integration test: not in -short
	env := map[string]string{"PORT": freePort(t), "HOME": os.Getenv("HOME")}
	key, base := startLocal(t, env)
	var who map[string]any
	if code := getJSON(t, base+"/api/whoami/", key, &who); code != 200 || who["authenticated"] != true || who["email"] != demoEmail {
		t.Errorf("whoami = %d %v", code, who)
	}
	// Its own emulators are filled for a new user: the sample catalog.
	var page struct{ Count int }
	if code := getJSON(t, base+"/api/templates/", "", &page); code != 200 || page.Count < 8 {
		t.Errorf("catalog = %d with %d templates", code, page.Count)
	}
}
