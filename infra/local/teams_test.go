package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// team is a tenant (an enterprise account owning a folder with a survey
// and everything under it) with three members: one the folder is shared
// with as editor, one as viewer, one without a share.
type team struct {
	tenant
	editor, viewer, outside string
	subs                    map[string]int64
}

func newTeam(t *testing.T) team {
	t.Helper()
	st := testenv.Store(t)
	ctx := context.Background()
	tm := team{tenant: newTenant(t), subs: map[string]int64{}}
	keys := map[string]*string{"editor": &tm.editor, "viewer": &tm.viewer, "outside": &tm.outside}
	for _, name := range []string{"editor", "viewer", "outside"} {
		m, key, err := st.CreateMember(ctx, tm.aid, survey.Member{Email: fmt.Sprintf("%s-%d@example.com", name, tm.aid), FirstName: name})
		if err != nil {
			t.Fatal(err)
		}
		*keys[name] = key
		tm.subs[name] = m.SubUser
	}
	_, err := st.SetFolderShares(ctx, tm.aid, tm.ids["folder"], []store.ShareRequest{
		{SubUser: tm.subs["editor"], Role: survey.RoleEditor}, {SubUser: tm.subs["viewer"], Role: survey.RoleViewer}})
	if err != nil {
		t.Fatal(err)
	}
	tm.ids["sub_user"] = tm.subs["outside"]
	return tm
}

// matrixBodies are the bodies that reach a route's decision about a
// folder in the body; every other write sends {} (the owner's answer is
// then often a 400: a viewer's is 403 all the same, decided before the
// body is read).
var matrixBodies = map[string]string{
	"POST /api/v2/surveys/": `{"name":"made by","folder_id":{folder_id}}`,
}

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// matrixPath fills a route's parameters with the team's ids (1 for a
// parameter it has no object for: the answer is then the owner's 404, the
// same for everyone who passes the decision).
func matrixPath(route string, ids map[string]int64) string {
	return pathParam.ReplaceAllStringFunc(route, func(m string) string {
		name := strings.TrimSuffix(strings.Trim(m, "{}"), "_id")
		if id, ok := ids[name]; ok {
			return itoa(id)
		}
		if id, ok := ids[strings.Trim(m, "{}")]; ok {
			return itoa(id)
		}
		return "1"
	})
}

// want is what the contract (section 19) gives each principal, given the
// owner's status on the same request against an account in the same
// state (another account's owner is an owner too where nothing of the
// account is named; a member's access is decided before the body).
func want(rt api.Route, who string, owner int) int {
	read := rt.Method == "GET" || rt.Method == "HEAD" || rt.Method == "OPTIONS" || rt.Access == api.AccessRead
	_, bodyFolder := matrixBodies[rt.Method+" "+rt.Path]
	switch {
	case strings.Contains(rt.Path, "{survey_id}"):
		switch who {
		case "stranger", "outside":
			return 404
		case "viewer":
			if !read {
				return 403
			}
		}
		return owner
	case strings.Contains(rt.Path, "{folder_id}"):
		switch who {
		case "stranger", "outside":
			return 404
		case "editor", "viewer":
			if !read || rt.Access == api.AccessOwner {
				return 403
			}
		}
		return owner
	}
	switch who {
	case "stranger":
		if strings.Contains(rt.Path, "{sub_user}") {
			return 404
		}
		if bodyFolder {
			return 400
		}
	case "editor", "viewer", "outside":
		// AccessEditor (the account's themes, contract section 22): an
		// editor of any folder writes as the owner does.
		if rt.Access == api.AccessOwner || !read && rt.Access != api.AccessFolderInBody && (rt.Access != api.AccessEditor || who != "editor") {
			return 403
		}
		if bodyFolder && who != "editor" {
			return 400
		}
	}
	return owner
}

// TestAccessMatrix: every owner route (listed from the routers, so a new
// route is in it) × owner / editor / viewer / member without the share /
// another account's owner answers what section 19 says. Writes run on a
// fresh team per principal that may write, so that one's write (a
// DELETE) does not change another's answer. It also reports each owner
// route's DynamoDB calls.
func TestAccessMatrix(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("emulators")
	}
	st := testenv.Store(t)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), exports: testenv.Exports(t), exportJobs: &capturedExports{}}))
	stranger := newTenant(t)
	var routes []api.Route
	for _, rt := range routers(st, config{}) {
		for _, r := range rt.Routes() {
			if !r.Public {
				routes = append(routes, r)
			}
		}
	}
	sort.Slice(routes, func(i, j int) bool {
		return routes[i].Path < routes[j].Path || routes[i].Path == routes[j].Path && routes[i].Method < routes[j].Method
	})
	var figures []string
	shared := newTeam(t)
	for _, rt := range routes {
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			read := rt.Method == "GET" || rt.Access == api.AccessRead
			body := matrixBodies[rt.Method+" "+rt.Path]
			if body == "" && !read {
				body = "{}"
			}
			ask := func(tm team, key string) (int, string, map[string]int) {
				req := testenv.NewRequest(rt.Method, matrixPath(rt.Path, tm.ids), key, "application/json", strings.NewReader(strings.ReplaceAll(body, "{folder_id}", itoa(tm.ids["folder"]))))
				if body == "" {
					req.Header.Del("Content-Type")
				}
				ctx, calls := awsenv.WithCalls(req.Context())
				rep := testenv.Serve(h, req.WithContext(ctx))
				return rep.Code, string(rep.Body), calls.Ops()
			}
			tm := shared
			if !read {
				tm = newTeam(t)
			}
			// The refused first: they must change nothing the others meet.
			order := []string{"stranger", "outside", "viewer", "editor", "owner"}
			keys := map[string]string{"stranger": stranger.key, "outside": tm.outside, "viewer": tm.viewer, "editor": tm.editor, "owner": tm.key}
			got := map[string]int{}
			bodies := map[string]string{}
			var ownerOps map[string]int
			for _, who := range order {
				use := tm
				if !read && (who == "owner") {
					use = newTeam(t) // the editor may have written (a DELETE): the owner meets the same state
					keys["owner"] = use.key
				}
				code, b, ops := ask(use, keys[who])
				got[who], bodies[who] = code, b
				if who == "owner" {
					ownerOps = ops
				}
			}
			for _, who := range order[:4] {
				w := want(rt, who, got["owner"])
				if who == "stranger" && w == 404 && got["owner"] == 400 && got[who] == 400 {
					continue // another account's owner: an invalid body is 400 before the id's 404, as before teams (isolation_test.go)
				}
				if got[who] != w {
					t.Errorf("%s: %d %s, want %d (the owner: %d)", who, got[who], bodies[who], w, got["owner"])
				}
				if got[who] == 403 && got["owner"] != 403 && !strings.Contains(bodies[who], "You do not have permission to perform this action.") {
					t.Errorf("%s: 403 %s", who, bodies[who])
				}
			}
			figures = append(figures, fmt.Sprintf("%-7s %-75s owner %d %v", rt.Method, rt.Path, got["owner"], ownerOps))
		})
	}
	t.Logf("owner's DynamoDB calls per route:\n%s", strings.Join(figures, "\n"))
}

func doJSON(t *testing.T, h http.Handler, key, method, path, body string, code int) []byte {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	rep := testenv.Serve(h, testenv.NewRequest(method, path, key, ct, strings.NewReader(body)))
	if rep.Code != code {
		t.Fatalf("%s %s = %d %s, want %d", method, path, rep.Code, rep.Body, code)
	}
	return rep.Body
}

// TestTeamLifecycle: members made by the owner, whoami as a member, a
// share that ends and a member removed stop on the next request, the
// member's key replaced, the account leaving the enterprise plan, and
// who did what (updated_by, the activity log).
func TestTeamLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("emulators")
	}
	st := testenv.Store(t)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), exports: testenv.Exports(t)}))
	owner := newTenant(t)
	fid, sid := itoa(owner.ids["folder"]), itoa(owner.ids["survey"])

	var m struct {
		SubUser int64  `json:"sub_user"`
		APIKey  string `json:"api_key"`
	}
	_ = json.Unmarshal(doJSON(t, h, owner.key, "POST", "/api/members/", `{"email":"Ann@example.com","first_name":"Ann"}`, 201), &m)
	doJSON(t, h, owner.key, "POST", "/api/members/", `{"email":"ann@EXAMPLE.com"}`, 400)
	doJSON(t, h, owner.key, "POST", "/api/members/", `{"email":"not an address"}`, 400)
	sub := itoa(m.SubUser)
	testenv.SameJSON(t, "whoami", doJSON(t, h, m.APIKey, "GET", "/api/whoami/", "", 200),
		`{"authenticated":true,"email":"Ann@example.com","first_name":"Ann","last_name":"","plan":"enterprise","user_type":2,"sub_user":`+sub+`}`)
	list := doJSON(t, h, owner.key, "GET", "/api/members/", "", 200)
	testenv.SameJSON(t, "members", list, `[{"sub_user":`+sub+`,"email":"Ann@example.com","first_name":"Ann","last_name":""}]`)

	// Not shared yet: the survey is not there.
	doJSON(t, h, m.APIKey, "GET", "/api/v2/surveys/"+sid+"/", "", 404)
	doJSON(t, h, owner.key, "PUT", "/api/folders/"+fid+"/shared-with/", `[{"sub_user":`+sub+`,"role":"viewer"},{"sub_user":`+sub+`,"role":"editor"}]`, 400)
	doJSON(t, h, owner.key, "PUT", "/api/folders/"+fid+"/shared-with/", `[{"sub_user":99999999,"role":"viewer"}]`, 400)
	shared := doJSON(t, h, owner.key, "PUT", "/api/folders/"+fid+"/shared-with/", `[{"sub_user":`+sub+`,"role":"viewer"}]`, 200)
	testenv.SameJSON(t, "shared-with", shared, `[{"sub_user":`+sub+`,"email":"Ann@example.com","first_name":"Ann","last_name":"","role":"viewer"}]`)
	doJSON(t, h, m.APIKey, "GET", "/api/v2/surveys/"+sid+"/", "", 200)
	doJSON(t, h, m.APIKey, "PATCH", "/api/v2/surveys/"+sid+"/", `{"name":`, 403) // invalid body, decided first
	var folders []struct {
		ID         int64            `json:"id"`
		SharedWith []map[string]any `json:"shared_with"`
	}
	_ = json.Unmarshal(doJSON(t, h, m.APIKey, "GET", "/api/folders/", "", 200), &folders)
	if len(folders) != 1 || folders[0].ID != owner.ids["folder"] || len(folders[0].SharedWith) != 1 {
		t.Errorf("the member's folders: %+v", folders)
	}

	// An editor writes; the detail and the log say who.
	doJSON(t, h, owner.key, "PUT", "/api/folders/"+fid+"/shared-with/", `[{"sub_user":`+sub+`,"role":"editor"}]`, 200)
	doJSON(t, h, m.APIKey, "PATCH", "/api/v2/surveys/"+sid+"/", `{"name":"renamed by Ann"}`, 200)
	var detail struct {
		UpdatedBy *struct {
			SubUser int64 `json:"sub_user"`
		} `json:"updated_by"`
		UpdatedAt string `json:"updated_at"`
	}
	_ = json.Unmarshal(doJSON(t, h, owner.key, "GET", "/api/v2/surveys/"+sid+"/", "", 200), &detail)
	if detail.UpdatedBy == nil || detail.UpdatedBy.SubUser != m.SubUser || detail.UpdatedAt == "" {
		t.Errorf("updated_by %+v at %q, want the member", detail.UpdatedBy, detail.UpdatedAt)
	}
	doJSON(t, h, owner.key, "PATCH", "/api/v2/surveys/"+sid+"/", `{"name":"renamed by the owner"}`, 200)
	_ = json.Unmarshal(doJSON(t, h, owner.key, "GET", "/api/v2/surveys/"+sid+"/", "", 200), &detail)
	if detail.UpdatedBy != nil {
		t.Errorf("updated_by %+v, want null (the owner)", detail.UpdatedBy)
	}
	var page struct {
		Count   int `json:"count"`
		Results []struct {
			SubUser  *int64 `json:"sub_user"`
			Method   string `json:"method"`
			Path     string `json:"path"`
			Status   int    `json:"status"`
			SurveyID *int64 `json:"survey_id"`
		} `json:"results"`
	}
	_ = json.Unmarshal(doJSON(t, h, owner.key, "GET", "/api/activity/", "", 200), &page)
	if len(page.Results) < 2 || page.Results[0].SubUser != nil || page.Results[1].SubUser == nil || *page.Results[1].SubUser != m.SubUser ||
		page.Results[1].Path != "/api/v2/surveys/"+sid+"/" || page.Results[1].Status != 200 || page.Results[1].SurveyID == nil {
		t.Errorf("activity: %+v", page)
	}
	doJSON(t, h, m.APIKey, "GET", "/api/activity/", "", 403)

	// The share ends: the next request is refused.
	doJSON(t, h, owner.key, "PUT", "/api/folders/"+fid+"/shared-with/", `[]`, 200)
	doJSON(t, h, m.APIKey, "GET", "/api/v2/surveys/"+sid+"/", "", 404)

	// A new key revokes the old one.
	var k struct {
		APIKey string `json:"api_key"`
	}
	_ = json.Unmarshal(doJSON(t, h, owner.key, "POST", "/api/members/"+sub+"/key/", "", 201), &k)
	doJSON(t, h, m.APIKey, "GET", "/api/whoami/", "", 401)
	doJSON(t, h, k.APIKey, "GET", "/api/whoami/", "", 200)

	// The account leaves the enterprise plan: members' keys are refused.
	ctx := context.Background()
	if err := st.SetPlan(ctx, owner.aid, survey.PlanPro); err != nil {
		t.Fatal(err)
	}
	if b := doJSON(t, h, k.APIKey, "GET", "/api/whoami/", "", 403); !strings.Contains(string(b), "This plan does not include team members.") {
		t.Errorf("whoami on pro: %s", b)
	}
	if err := st.SetPlan(ctx, owner.aid, survey.PlanEnterprise); err != nil {
		t.Fatal(err)
	}
	doJSON(t, h, k.APIKey, "GET", "/api/whoami/", "", 200)

	// A member's key off the plan signs no plugin in (contract section 21's
	// exact answers).
	if err := st.SetPlan(ctx, owner.aid, survey.PlanPro); err != nil {
		t.Fatal(err)
	}
	req := testenv.NewRequest("POST", "/api/whoami/", "", "application/json", strings.NewReader(`{"authorization":"API-Key `+k.APIKey+`"}`))
	req.Header.Del("Authorization")
	if rep := testenv.Serve(h, req); rep.Code != 200 || string(rep.Body) != `{"authenticated": false}` {
		t.Errorf("plugin sign-in with a member's key off the plan: %d %s", rep.Code, rep.Body)
	}
	if err := st.SetPlan(ctx, owner.aid, survey.PlanEnterprise); err != nil {
		t.Fatal(err)
	}

	// Removed: the key stops at once, and the member leaves the folders
	// shared with them.
	doJSON(t, h, owner.key, "PUT", "/api/folders/"+fid+"/shared-with/", `[{"sub_user":`+sub+`,"role":"editor"}]`, 200)
	doJSON(t, h, k.APIKey, "GET", "/api/v2/surveys/"+sid+"/", "", 200)
	doJSON(t, h, owner.key, "DELETE", "/api/members/"+sub+"/", "", 204)
	doJSON(t, h, k.APIKey, "GET", "/api/whoami/", "", 401)
	doJSON(t, h, owner.key, "DELETE", "/api/members/"+sub+"/", "", 404)
	testenv.SameJSON(t, "shared-with after the removal", doJSON(t, h, owner.key, "GET", "/api/folders/"+fid+"/shared-with/", "", 200), `[]`)
}

// TestMembersNeedEnterprise: another plan answers 403 naming it.
func TestMembersNeedEnterprise(t *testing.T) {
	if testing.Short() {
		t.Skip("emulators")
	}
	st := testenv.Store(t)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), exports: testenv.Exports(t)}))
	_, key := testenv.NewAccount(t, survey.PlanPro)
	b := doJSON(t, h, key, "GET", "/api/members/", "", 403)
	if !strings.Contains(string(b), "pro") || !strings.Contains(string(b), "enterprise") {
		t.Errorf("403 %s: want the plan named", b)
	}
	doJSON(t, h, key, "POST", "/api/members/", `{"email":""}`, 400) // the body first
	doJSON(t, h, key, "POST", "/api/members/", `{"email":"bob@example.com"}`, 403)
}

// TestDeletedFolderEndsItsShares: once the owner deletes a shared folder
// its trashed surveys are the owner's alone (contract section 19 as
// amended): the editor and the viewer no longer read the trashed survey
// (404, as anything they do not reach), the editor cannot restore it into
// a folder shared with them as editor, and the folder leaves their lists;
// the owner restores it into that folder.
func TestDeletedFolderEndsItsShares(t *testing.T) {
	if testing.Short() {
		t.Skip("emulators")
	}
	st := testenv.Store(t)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), exports: testenv.Exports(t)}))
	tm := newTeam(t)
	ctx := context.Background()
	other, err := st.CreateFolder(ctx, tm.aid, "The editor's other folder", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetFolderShares(ctx, tm.aid, other.ID, []store.ShareRequest{{SubUser: tm.subs["editor"], Role: survey.RoleEditor}}); err != nil {
		t.Fatal(err)
	}
	fid, sid := itoa(tm.ids["folder"]), itoa(tm.ids["survey"])
	doJSON(t, h, tm.editor, "GET", "/api/v2/surveys/"+sid+"/", "", 200)
	doJSON(t, h, tm.key, "DELETE", "/api/folders/"+fid+"/", "", 204)

	for _, key := range []string{tm.editor, tm.viewer} {
		doJSON(t, h, key, "GET", "/api/v2/surveys/"+sid+"/", "", 404)
		doJSON(t, h, key, "GET", "/api/v2/surveys/"+sid+"/questions/", "", 404)
		var folders []struct {
			ID int64 `json:"id"`
		}
		_ = json.Unmarshal(doJSON(t, h, key, "GET", "/api/folders/", "", 200), &folders)
		for _, f := range folders {
			if f.ID == tm.ids["folder"] {
				t.Errorf("the deleted folder %d is still listed for a member", f.ID)
			}
		}
	}
	restore := "/api/v2/surveys/" + sid + "/restore/"
	doJSON(t, h, tm.editor, "POST", restore, `{"folder_id":`+itoa(other.ID)+`}`, 404)
	doJSON(t, h, tm.viewer, "POST", restore, `{"folder_id":`+itoa(other.ID)+`}`, 404)
	doJSON(t, h, tm.key, "POST", restore, `{"folder_id":`+itoa(other.ID)+`}`, 200)
	// Restored by the owner into the folder shared with the editor: theirs
	// again through that share, not the deleted folder's.
	doJSON(t, h, tm.editor, "GET", "/api/v2/surveys/"+sid+"/", "", 200)
	doJSON(t, h, tm.viewer, "GET", "/api/v2/surveys/"+sid+"/", "", 404)
}

// TestViewersReadHeadersMasked: a viewer reads webhooks and notifications
// with every header value replaced by "********" (contract section 19 as
// amended), on both routes, list and detail; the owner and editors, who
// set them, read them whole. A write that sends back "********" keeps the
// stored value (a GET-then-PATCH never replaces a secret with the mask);
// a masked value for a header the webhook lacks, or on a create, is a 400.
func TestViewersReadHeadersMasked(t *testing.T) {
	if testing.Short() {
		t.Skip("emulators")
	}
	st := testenv.Store(t)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), exports: testenv.Exports(t)}))
	tm := newTeam(t)
	sid := itoa(tm.ids["survey"])
	native := "/api/surveys/" + sid + "/webhooks/"
	compat := "/api/v2/surveys/" + sid + "/notifications/"
	var made struct {
		ID int64 `json:"id"`
	}
	_ = json.Unmarshal(doJSON(t, h, tm.key, "POST", native,
		`{"url":"https://93.184.216.34/masked","headers":{"Authorization":"Bearer s3cret","X-Team":"blue"}}`, 201), &made)
	hook := native + itoa(made.ID) + "/"
	_ = json.Unmarshal(doJSON(t, h, tm.key, "POST", compat,
		`{"recipient_type":5,"sending_method":3,"webhook_endpoint":"https://93.184.216.34/other","webhook_headers":{"X-Api-Key":"k3y"}}`, 201), &made)
	note := compat + itoa(made.ID) + "/"

	headersOf := func(body []byte, field string) []map[string]string {
		var one map[string]json.RawMessage
		var many []map[string]json.RawMessage
		if json.Unmarshal(body, &many) != nil {
			_ = json.Unmarshal(body, &one)
			many = append(many, one)
		}
		var out []map[string]string
		for _, m := range many {
			var hs map[string]string
			_ = json.Unmarshal(m[field], &hs)
			out = append(out, hs)
		}
		return out
	}
	for _, who := range []struct {
		name, key string
		masked    bool
	}{{"owner", tm.key, false}, {"editor", tm.editor, false}, {"viewer", tm.viewer, true}} {
		for _, read := range []struct{ path, field string }{{native, "headers"}, {hook, "headers"}, {compat, "webhook_headers"}, {note, "webhook_headers"}} {
			for _, hs := range headersOf(doJSON(t, h, who.key, "GET", read.path, "", 200), read.field) {
				for k, v := range hs {
					if (v == survey.MaskedHeader) != who.masked {
						t.Errorf("%s reads %s: %s = %q (masked %v)", who.name, read.path, k, v, who.masked)
					}
				}
			}
		}
	}
	// The round trip: what the viewer read, written back by the editor with
	// one header changed, keeps the other's stored value.
	viewed := headersOf(doJSON(t, h, tm.viewer, "GET", hook, "", 200), "headers")[0]
	viewed["X-Team"] = "green"
	body, _ := json.Marshal(map[string]any{"headers": viewed})
	doJSON(t, h, tm.editor, "PATCH", hook, string(body), 200)
	got := headersOf(doJSON(t, h, tm.key, "GET", hook, "", 200), "headers")[0]
	if got["Authorization"] != "Bearer s3cret" || got["X-Team"] != "green" {
		t.Errorf("after the round trip: %v", got)
	}
	doJSON(t, h, tm.editor, "PATCH", note, `{"webhook_headers":{"x-api-key":"********"}}`, 200)
	if got := headersOf(doJSON(t, h, tm.key, "GET", note, "", 200), "webhook_headers")[0]; got["x-api-key"] != "k3y" {
		t.Errorf("the notification's header after the round trip: %v", got)
	}
	doJSON(t, h, tm.editor, "PATCH", hook, `{"headers":{"X-Unknown":"********"}}`, 400)
	doJSON(t, h, tm.key, "POST", native, `{"url":"https://93.184.216.34/new","headers":{"Authorization":"********"}}`, 400)
	doJSON(t, h, tm.viewer, "PATCH", hook, `{"headers":{}}`, 403)
}

// TestAppreciationLinkWithinReach: an editor's appreciation page links
// only to a survey they reach (contract section 19 as amended): one of the
// account's surveys outside their folders answers the very 400 of a
// survey that does not exist, so nothing tells which ids exist; one in
// their folder is taken and the hosted page prints its address. Once that
// survey leaves the editor's reach (the owner moves it to a private
// folder) the page prints no address the editor could not have set; the
// owner's own link to the private survey is printed.
func TestAppreciationLinkWithinReach(t *testing.T) {
	if testing.Short() {
		t.Skip("emulators")
	}
	st := testenv.Store(t)
	h := serve(routers(st, config{sealer: testenv.Sealer(t), exports: testenv.Exports(t)}))
	tm := newTeam(t)
	ctx := context.Background()
	private, err := st.CreateFolder(ctx, tm.aid, "The owner's own", nil)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := st.CreateSurvey(ctx, survey.Survey{AccountID: tm.aid, FolderID: private.ID, Name: "Secret", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	var reached struct {
		ID      int64  `json:"id"`
		URLSlug string `json:"url_slug"`
	}
	_ = json.Unmarshal(doJSON(t, h, tm.editor, "POST", "/api/v2/surveys/", `{"name":"Next","folder_id":`+itoa(tm.ids["folder"])+`}`, 201), &reached)
	sid := itoa(tm.ids["survey"])
	questions := "/api/v2/surveys/" + sid + "/questions/"
	thanks := func(link int64) string {
		return `{"type":9,"title":"Thanks","link_active":true,"link_type":2,"link":` + itoa(link) + `}`
	}
	missing := doJSON(t, h, tm.editor, "POST", questions, thanks(99999999), 400)
	probed := doJSON(t, h, tm.editor, "POST", questions, thanks(secret.ID), 400)
	if strings.ReplaceAll(string(missing), "99999999", itoa(secret.ID)) != string(probed) {
		t.Errorf("an unreached survey answers %s, a missing one %s", probed, missing)
	}
	var el struct {
		ID int64 `json:"id"`
	}
	_ = json.Unmarshal(doJSON(t, h, tm.editor, "POST", questions, thanks(reached.ID), 201), &el)
	doJSON(t, h, tm.editor, "PATCH", questions+itoa(el.ID)+"/", `{"link":`+itoa(secret.ID)+`}`, 400)

	var detail struct {
		URLSlug string `json:"url_slug"`
	}
	_ = json.Unmarshal(doJSON(t, h, tm.key, "GET", "/api/v2/surveys/"+sid+"/", "", 200), &detail)
	page := func() string {
		rep := testenv.Serve(h, testenv.NewRequest("GET", "/s/"+detail.URLSlug+"/", "", "", nil))
		if rep.Code != 200 {
			t.Fatalf("the page: %d", rep.Code)
		}
		return string(rep.Body)
	}
	if body := page(); !strings.Contains(body, "/s/"+reached.URLSlug+"/") {
		t.Errorf("the page lacks the address of the editor's linked survey %s", reached.URLSlug)
	}
	// The linked survey leaves the editor's reach: the address is no
	// longer printed.
	doJSON(t, h, tm.key, "PATCH", "/api/v2/surveys/"+itoa(reached.ID)+"/", `{"folder_id":`+itoa(private.ID)+`}`, 200)
	if body := page(); strings.Contains(body, reached.URLSlug) || strings.Contains(body, "appreciation-link") {
		t.Errorf("the page prints the address of a survey its setter does not reach")
	}
	// The owner may link any survey of the account.
	doJSON(t, h, tm.key, "PATCH", questions+itoa(el.ID)+"/", `{"link":`+itoa(secret.ID)+`}`, 200)
	if body := page(); !strings.Contains(body, "/s/"+secret.URLSlug+"/") {
		t.Errorf("the page lacks the address of the owner's linked survey")
	}
	// The setter never shows in the API.
	if b := doJSON(t, h, tm.key, "GET", questions+itoa(el.ID)+"/", "", 200); strings.Contains(string(b), "link_set_by") {
		t.Errorf("the element shows its link's setter: %s", b)
	}
}
