package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// compatCall is one request as a client's own code builds it, sent to the
// whole API (every function behind template.yaml's routes).
type compatCall struct {
	method, path string
	header       map[string]string
	body         string
}

func (c compatCall) do(t *testing.T, base string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestClientsCompat replays, against the whole API, the requests the
// public clients of the real service make for the plugins' sign-in, embeds, variables and ratings
// (contract section 21), method, path, headers and body as their code
// builds them, and checks every field their code reads with the type it
// expects. The clients' runtimes: PHP is not on this machine (the plugin
// also needs WordPress), so its requests are replayed here; the Python SDK
// makes none of these calls; the n8n node (TypeScript, needing n8n itself)
// is replayed for its notifications.
func TestClientsCompat(t *testing.T) {
	t.Parallel()
	o := testenv.NewOwner(t, survey.PlanPro, "compat")
	srv := httptest.NewServer(nil)
	t.Cleanup(srv.Close)
	srv.Config.Handler = serve(routers(o.Store, config{surveyURL: srv.URL, sealer: testenv.Sealer(t),
		exports: testenv.Exports(t), pages: pages.Config{PublicURL: srv.URL}, guard: webhook.Guard{AllowLoopback: true}}))
	sv := testenv.NewSurvey(t, o.Store, o.Account.ID, o.Folder, "Compat")
	base := srv.URL
	// WordPress's wp_remote_post with an array body sends it form-encoded
	// (http_build_query), with this content type and no Authorization.
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=UTF-8"}
	keyed := map[string]string{"Authorization": "API-Key " + o.Key}

	t.Run("plugin sign-in", func(t *testing.T) {
		// view/auth-api-ajax.php:9-16, view/get-folders.php:10-18:
		// $whoamiBody = array('authorization' => 'API-key ' . $key);
		// wp_remote_post('https://survey.porsline.ir/api/whoami/', ['method' => 'POST', 'body' => $whoamiBody]);
		// if ($validWho == '{"authenticated": true}') ...
		for key, want := range map[string]string{o.Key: `{"authenticated": true}`, survey.NewKey(): `{"authenticated": false}`} {
			code, _, body := compatCall{"POST", "/api/whoami/", form, url.Values{"authorization": {"API-key " + key}}.Encode()}.do(t, base)
			if code != 200 || body != want {
				t.Errorf("whoami: %d %q, want 200 %q", code, body, want)
			}
		}
		// view/settings.php:16-24: wp_remote_get('.../rest-auth/user/', ['headers' => ['Authorization' => 'API-Key ' . $api_key]]);
		// json_decode, then array_key_exists('detail', ...) is a failed sign-in.
		code, _, body := compatCall{"GET", "/rest-auth/user/", keyed, ""}.do(t, base)
		var user map[string]any
		if err := json.Unmarshal([]byte(body), &user); code != 200 || err != nil || user["detail"] != nil {
			t.Fatalf("rest-auth/user: %d %s", code, body)
		}
		if _, ok := user["pk"].(float64); !ok || user["email"] != o.Account.Email {
			t.Errorf("rest-auth/user: %v", user)
		}
		code, _, body = compatCall{"GET", "/rest-auth/user/", map[string]string{"Authorization": "API-Key " + survey.NewKey()}, ""}.do(t, base)
		if err := json.Unmarshal([]byte(body), &user); code != 401 || err != nil || user["detail"] == nil {
			t.Errorf("rest-auth/user with a bad key: %d %s, want a detail", code, body)
		}
	})

	t.Run("plugin embed by preview_code", func(t *testing.T) {
		// view/get-folders.php:35-41: GET /api/folders/?nested=true; view/shortcode.php:27-35 and
		// panel/survey-list.php:573 read $folder->surveys[]->id, ->language, ->preview_code.
		code, _, body := compatCall{"GET", "/api/folders/?nested=true", keyed, ""}.do(t, base)
		var folders []struct {
			Surveys []struct {
				ID          *int64  `json:"id"`
				Language    *int64  `json:"language"`
				PreviewCode *string `json:"preview_code"`
			} `json:"surveys"`
		}
		if err := json.Unmarshal([]byte(body), &folders); code != 200 || err != nil || len(folders) == 0 || len(folders[0].Surveys) != 1 {
			t.Fatalf("folders: %d %.300s (%v)", code, body, err)
		}
		s := folders[0].Surveys[0]
		if s.ID == nil || *s.ID != sv.ID || s.Language == nil || s.PreviewCode == nil || *s.PreviewCode != sv.PreviewCode {
			t.Fatalf("folder's survey: %+v", s)
		}
		// view/shortcode.php:119: <iframe src="https://survey.porsline.ir/s/' . $survey[0]->survay_code . '">,
		// no final slash; panel/survey-list.php:817 links the same address.
		code, h, page := compatCall{"GET", "/s/" + *s.PreviewCode, nil, ""}.do(t, base)
		if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !strings.Contains(page, `<link rel="canonical" href="`+base+`/s/`+sv.URLSlug+`/">`) {
			t.Errorf("embed: %d %s %.200s", code, h.Get("Content-Type"), page)
		}
		if !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors *") {
			t.Errorf("embed: policy %q does not let the plugin's site frame it", h.Get("Content-Security-Policy"))
		}
	})

	asJSON := map[string]string{"Authorization": "API-Key " + o.Key, "Content-Type": "application/json"}
	t.Run("rating steps and icon_type", func(t *testing.T) {
		// The reference's create-question then update-question (mindcloud-inc/universal-api-reference,
		// apis/p/porsline/native-api/actions/{create,update}-question.md).
		code, _, body := compatCall{"POST", fmt.Sprintf("/api/v2/surveys/%d/questions/", sv.ID), asJSON, `{"title":"Rate us","type":7}`}.do(t, base)
		qid := idIn(t, code, 201, body)
		path := fmt.Sprintf("/api/v2/surveys/%d/questions/%d/", sv.ID, qid)
		code, _, body = compatCall{"PATCH", path, asJSON, `{"title":"Rate us","type":7,"steps":7,"icon_type":2,"answer_required":true}`}.do(t, base)
		if code != 200 {
			t.Fatalf("PATCH: %d %s", code, body)
		}
		// omidrah/porsline JsonModel/Question.cs:106-110 reads int? steps and int? icon_type.
		_, _, body = compatCall{"GET", path, keyed, ""}.do(t, base)
		var q struct {
			Steps          *int64 `json:"steps"`
			IconType       *int64 `json:"icon_type"`
			AnswerRequired bool   `json:"answer_required"`
		}
		if err := jsonUnmarshal([]byte(body), &q); err != nil || q.Steps == nil || *q.Steps != 7 || q.IconType == nil || *q.IconType != 2 || !q.AnswerRequired {
			t.Errorf("question: %s (%v)", body, err)
		}
		_, _, page := compatCall{"GET", "/s/" + sv.URLSlug + "/", nil, ""}.do(t, base)
		if strings.Count(page, "♥") != 7 {
			t.Errorf("the page draws %d hearts, want 7", strings.Count(page, "♥"))
		}
	})

	t.Run("n8n trigger's notifications", func(t *testing.T) {
		// asedmammad/n8n-nodes-porsline: the credential sets Authorization "API-KEY " + key
		// (credentials/PorslineCredentialsApi.credentials.ts:26-31); apiRequest sends the body as
		// JSON (request's json: true) to https://survey.porsline.ir/api/surveys/<id>/webhooks/
		// (nodes/PorslineTrigger/GenericFunctions.ts:24-31). Activation, PorslineTrigger.node.ts:127-141:
		n8n := map[string]string{"Authorization": "API-KEY " + o.Key, "Content-Type": "application/json", "Accept": "application/json"}
		path := fmt.Sprintf("/api/surveys/%d/webhooks/", sv.ID)
		hookURL := "http://127.0.0.1:5678/webhook/0b5c5a1e-3f3c-4a4e-9a1c-2a7f5b1f9e21/webhook" // n8n's own address
		activate := fmt.Sprintf(`{"recipient_type":5,"enabled":true,"webhook_headers":{"Content-Type":"application/json"},`+
			`"webhook_endpoint":%q,"webhook_method":"POST","survey_id":"%d","sending_method":3}`, hookURL, sv.ID)
		// The node awaits the request and reads nothing of the answer but its success.
		code, _, body := compatCall{"POST", path, n8n, activate}.do(t, base)
		wid := idIn(t, code, 201, body)
		// Deactivation, PorslineTrigger.node.ts:157-170 ("Porsline does not support deleting
		// webhooks so we simply send a request with enabled=false"):
		deactivate := fmt.Sprintf(`{"recipient_type":5,"enabled":false,"webhook_headers":{"Content-Type":"application/json"},`+
			`"webhook_endpoint":"","webhook_method":"POST","survey_id":"%d","sending_method":3}`, sv.ID)
		if code, _, body := (compatCall{"POST", path, n8n, deactivate}).do(t, base); code < 200 || code > 299 {
			t.Fatalf("deactivation: %d %s", code, body)
		}
		var hooks []struct {
			ID      int64             `json:"id"`
			Active  bool              `json:"active"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		}
		_, _, body = compatCall{"GET", path, keyed, ""}.do(t, base)
		if err := json.Unmarshal([]byte(body), &hooks); err != nil || len(hooks) != 1 || hooks[0].ID != wid || hooks[0].Active ||
			hooks[0].URL != hookURL || hooks[0].Headers["Content-Type"] != "application/json" {
			t.Fatalf("after the deactivation: %s (%v)", body, err)
		}
		// Activating the workflow again is the same webhook, enabled.
		code, _, body = compatCall{"POST", path, n8n, activate}.do(t, base)
		if again := idIn(t, code, 200, body); again != wid {
			t.Errorf("activation again made webhook %d, want %d", again, wid)
		}
		// The credential test, PorslineTrigger.node.ts:83-95: GET /api/folders/ with "API-Key".
		if code, _, body := (compatCall{"GET", "/api/folders/", map[string]string{"authorization": "API-Key " + o.Key}, ""}).do(t, base); code != 200 || !strings.HasPrefix(body, "[") {
			t.Errorf("credential test: %d %.200s", code, body)
		}
	})

	t.Run("variables", func(t *testing.T) {
		// native-api/actions/create-variables.md: {"variables": [...]}; the C# Variable model
		// (JsonModel/Variable.cs) reads int id, string name, int type, int variable_source, bool has_response.
		code, _, body := compatCall{"POST", fmt.Sprintf("/api/surveys/%d/variables/", sv.ID), asJSON,
			`{"variables":[{"name":"email","variable_source":0,"type":1},{"name":"crm_id","variable_source":1,"type":2}]}`}.do(t, base)
		var out struct {
			Variables []struct {
				ID             *int64  `json:"id"`
				Name           *string `json:"name"`
				Type           *int64  `json:"type"`
				VariableSource *int64  `json:"variable_source"`
				HasResponse    *bool   `json:"has_response"`
			} `json:"variables"`
		}
		if err := jsonUnmarshal([]byte(body), &out); code != 201 || err != nil || len(out.Variables) != 2 {
			t.Fatalf("variables: %d %s (%v)", code, body, err)
		}
		for _, v := range out.Variables {
			if v.ID == nil || v.Name == nil || v.Type == nil || v.VariableSource == nil || v.HasResponse == nil {
				t.Errorf("variable %s lacks a field the C# model reads", body)
			}
		}
		if *out.Variables[1].VariableSource != 1 {
			t.Errorf("crm_id: variable_source %d, want 1", *out.Variables[1].VariableSource)
		}
		// hash-hidden-fields.md: {"values": [{...}, ...]}; a null is no value.
		code, _, body = compatCall{"POST", fmt.Sprintf("/api/surveys/%d/variables/hashes/", sv.ID), asJSON,
			`{"values":[{"email":"alice@example.com","crm_id":null},{"crm_id":42,"is_unique":true}]}`}.do(t, base)
		var links struct{ URLs []string }
		if err := jsonUnmarshal([]byte(body), &links); code != 200 || err != nil || len(links.URLs) != 2 {
			t.Fatalf("hashes: %d %s", code, body)
		}
		u, err := url.Parse(links.URLs[0])
		if err != nil {
			t.Fatal(err)
		}
		code, _, body = compatCall{"GET", "/api/public/surveys/" + sv.URLSlug + "/variables/?qs=" + u.Query().Get("qs"), nil, ""}.do(t, base)
		if code != 200 || body != `{"values":{"email":"alice@example.com"}}` {
			t.Errorf("link values: %d %s", code, body)
		}
	})
}

func idIn(t *testing.T, code, want int, body string) int64 {
	t.Helper()
	var v struct{ ID int64 }
	if err := jsonUnmarshal([]byte(body), &v); code != want || err != nil || v.ID == 0 {
		t.Fatalf("%d %s, want %d with an id", code, body, want)
	}
	return v.ID
}
