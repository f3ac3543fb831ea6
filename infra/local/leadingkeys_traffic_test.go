package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/miekg/dns"

	"surveyservice/functions/account"
	"surveyservice/functions/deliver"
	"surveyservice/functions/dispatch"
	"surveyservice/functions/pages"
	"surveyservice/functions/responses"
	"surveyservice/functions/responses/workbook"
	"surveyservice/functions/retrier"
	"surveyservice/functions/sweeper"
	"surveyservice/functions/tally"
	"surveyservice/infra/seed"
	"surveyservice/internal/dnstest"
	"surveyservice/internal/localaws"
	"surveyservice/internal/outbox"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/cdn"
	"surveyservice/shared/challenge"
	"surveyservice/shared/dnscheck"
	"surveyservice/shared/exports"
	"surveyservice/shared/hosts"
	"surveyservice/shared/links"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/responding"
	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
	"surveyservice/shared/webhook"
)

// capturedExports is an export queue that keeps the jobs it is sent.
type capturedExports struct {
	mu   sync.Mutex
	jobs []exports.Job
}

func (q *capturedExports) Send(_ context.Context, j exports.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, j)
	return nil
}

// capturedJobs is a webhook queue that keeps the jobs it is sent.
type capturedJobs struct {
	mu   sync.Mutex
	jobs []webhook.Job
}

func (q *capturedJobs) Send(_ context.Context, jobs []webhook.Job, _ time.Duration) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, jobs...)
	return nil
}

func (q *capturedJobs) take() []webhook.Job {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.jobs
	q.jobs = nil
	return out
}

// TestLeadingKeysTraffic drives every function's routes and events on the
// emulators, each function's DynamoDB calls recorded by partition
// (awsenv.KeyLog, in the SDK's middleware: what the calls really name),
// and holds every call to that function's policy in template.yaml: an
// allowed action on the table or index, with a dynamodb:LeadingKeys
// pattern that matches the key. A route whose code path reaches a prefix
// the policy does not list fails here, as IAM would refuse it in AWS.
func TestLeadingKeysTraffic(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	logs := map[string]*awsenv.KeyLog{}
	logFor := func(fn string) *awsenv.KeyLog {
		if logs[fn] == nil {
			logs[fn] = &awsenv.KeyLog{}
		}
		return logs[fn]
	}
	tagged := func(fn string, ctx context.Context) context.Context { return awsenv.WithKeyLog(ctx, logFor(fn)) }

	jobs, exportJobs := &capturedJobs{}, &capturedExports{}
	cfg := config{sealer: testenv.Sealer(t), exports: testenv.Exports(t), queue: jobs, exportJobs: exportJobs,
		guard: webhook.Guard{AllowLoopback: true}}
	cfg.surveyURL = "http://127.0.0.1"
	cfg.pages.PublicURL = cfg.surveyURL // oEmbed answers for the pages under it
	cfg.uploads = testenv.Uploads(t)    // the themes' background images (section 22)
	dnsSrv := dnstest.Start(t)          // a custom domain's records, read by its verify (section 23)
	domainsEnv := map[string]string{"PUBLIC_SURVEY_DOMAIN": "localhost", "DOMAINS_TARGET_SUFFIX": "domains.localhost", "DNS_RESOLVER": dnsSrv.Addr}
	cfg.domains = account.DomainsFromEnv(func(k string) string { return domainsEnv[k] })
	// Each function its own routers (its own authenticator and caches), as
	// each is its own Lambda function in AWS.
	targets := map[string]http.Handler{}
	routes := &routeCoverage{}
	// The public functions as their Lambda mains serve them: within their
	// limits (RATE#), and by host (section 23: a subdomain of
	// PUBLIC_SURVEY_DOMAIN, or a custom domain, resolves its account).
	hostsCfg := hosts.Config{Domain: "localhost", Scheme: "http", Own: []string{"example.com", "127.0.0.1"}}
	cfg.pages.Links = hosts.NewLinks(hostsCfg, cfg.pages.PublicURL, st)
	texts := &sentCodes{}
	cfg.sender, cfg.limits = texts, sending.DefaultLimits // section 18's sign-in codes
	for name := range routers(st, cfg) {
		rt := routers(st, cfg)[name]
		which := routes.add(name, rt.Routes())
		if wrap := limited(st, ratelimit.Service)[name]; wrap != nil {
			rt = wrap(rt)
		}
		h := testenv.Conform(api.Mount(rt))
		if name == "RespondersFunction" || name == "PagesFunction" {
			h = hosts.New(hostsCfg, st).Wrap(h, hosts.Serving, pages.NotFound())
		}
		targets[name] = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &statusRecorder{ResponseWriter: w}
			h.ServeHTTP(rec, r.WithContext(tagged(name, r.Context())))
			routes.served(name, which, r, rec.status())
		})
	}
	h, err := gatewayRoutes.Handler(localReading, targets)
	if err != nil {
		t.Fatal(err)
	}

	// The catalog (templates, and the catalog account's surveys).
	if _, _, err := loadCatalog(t.Context(), st, h, seed.Templates); err != nil {
		t.Fatal(err)
	}

	acct, key := testenv.NewAccount(t, survey.PlanEnterprise)
	do := func(method, path, body string, hdr ...string) (int, map[string]any) {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Api-Key "+key)
		req.Header.Set("Accept", "application/json")
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			var list []map[string]any
			if json.Unmarshal(rec.Body.Bytes(), &list) == nil && len(list) > 0 {
				out = list[0] // a list's first
			}
		}
		return rec.Code, out
	}
	id := func(m map[string]any, k string) string { return fmt.Sprint(int64(m[k].(float64))) }
	must := func(want, got int, what string) {
		t.Helper()
		if got != want {
			t.Fatalf("%s: %d, want %d", what, got, want)
		}
	}

	// Owner: folders, surveys, elements, settings, codes, variables.
	do("GET", "/api/whoami/", "")
	code, folder := do("POST", "/api/folders/", `{"name":"Keys"}`)
	must(201, code, "folder")
	fid := id(folder, "id")
	do("GET", "/api/folders/", "")
	do("GET", "/api/folders/"+fid+"/", "")
	do("PATCH", "/api/folders/"+fid+"/", `{"name":"Keys 2"}`)
	do("PUT", "/api/folders/"+fid+"/", `{"name":"Keys 3"}`)
	code, sv := do("POST", "/api/v2/surveys/", `{"name":"Keys","folder_id":`+fid+`,"language":4}`)
	must(201, code, "survey")
	sid, slug := id(sv, "id"), sv["url_slug"].(string)
	code, q := do("POST", "/api/v2/surveys/"+sid+"/questions/", `{"type":2,"title":"Name?"}`)
	must(201, code, "question")
	qid := id(q, "id")
	code, ch := do("POST", "/api/v2/surveys/"+sid+"/questions/", `{"type":3,"title":"Pick","choices":[{"name":"A"},{"name":"B"}]}`)
	must(201, code, "choice question")
	_, fileQ := do("POST", "/api/v2/surveys/"+sid+"/questions/", `{"type":11,"title":"Group"}`) // type 11: a file upload
	do("GET", "/api/v2/surveys/"+sid+"/questions/", "")
	do("GET", "/api/v2/surveys/"+sid+"/questions/"+qid+"/", "")
	do("PATCH", "/api/v2/surveys/"+sid+"/questions/"+id(ch, "id")+"/", `{"title":"Pick one"}`)
	do("GET", "/api/v2/surveys/"+sid+"/", "")
	do("PATCH", "/api/v2/surveys/"+sid+"/", `{"name":"Keys survey"}`)
	do("GET", "/api/surveys/"+sid+"/settings/", "")
	do("PATCH", "/api/surveys/"+sid+"/settings/", `{"hide_progressbar":true,"expiration_date":"2099-01-01"}`)
	do("POST", "/api/surveys/"+sid+"/settings/authentication-codes/", `["ALPHA","BETA"]`)
	do("GET", "/api/surveys/"+sid+"/settings/authentication-codes/", "")
	do("DELETE", "/api/surveys/"+sid+"/settings/authentication-codes/", `["BETA"]`)
	do("POST", "/api/surveys/"+sid+"/settings/phone-numbers/", `["+989121234567","00447911123457"]`)
	do("GET", "/api/surveys/"+sid+"/settings/phone-numbers/?page_size=1&page=2", "")
	do("DELETE", "/api/surveys/"+sid+"/settings/phone-numbers/", `["+447911123457"]`)
	code, vars := do("POST", "/api/surveys/"+sid+"/variables/", `{"name":"tier","variable_source":0}`)
	must(201, code, "variable")
	do("GET", "/api/surveys/"+sid+"/variables/", "")
	_, hashes := do("POST", "/api/surveys/"+sid+"/variables/hashes/", `{"values":[{"tier":"gold"}]}`)
	must(200, first(do("GET", "/api/folders/"+fid+"/shared-with/", "")), "a folder's shares")
	// Languages and a translation (section 24).
	code, langs := do("GET", "/api/surveys/"+sid+"/languages/", "")
	must(200, code, "languages")
	other := "en"
	if langs["default"] == "en" {
		other = "fa"
	}
	must(200, first(do("PUT", "/api/surveys/"+sid+"/languages/", `{"languages":["`+other+`"]}`)), "add a language")
	must(200, first(do("PUT", "/api/surveys/"+sid+"/translations/"+other+"/", `{"survey":{"name":"Keys (`+other+`)"},"elements":{}}`)), "a translation")
	must(200, first(do("GET", "/api/surveys/"+sid+"/translations/"+other+"/", "")), "read a translation")
	// A quota (section 25): the submissions below take their places.
	choice := fmt.Sprint(int64(ch["choices"].([]any)[0].(map[string]any)["id"].(float64)))
	code, quota := do("POST", "/api/surveys/"+sid+"/quotas/", `{"name":"As","limit":100,"conditions":[{"question":`+id(ch, "id")+`,"choices":[`+choice+`]}]}`)
	must(201, code, "a quota")
	quotaPath := "/api/surveys/" + sid + "/quotas/" + id(quota, "id") + "/"
	must(200, first(do("GET", "/api/surveys/"+sid+"/quotas/", "")), "quotas")
	must(200, first(do("GET", quotaPath, "")), "a quota's detail")
	must(200, first(do("PATCH", quotaPath, `{"limit":50}`)), "a quota's change")
	// A response limit where there was none counts the responses so far
	// (store.CountResponses: the page index and GSI1's RTIME#).
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"response_limit":100000}`)), "a response limit")
	// Themes.
	must(200, first(do("GET", "/api/themes/", "")), "themes")
	must(200, first(do("GET", "/api/themes/fonts/", "")), "fonts")
	// The account's subdomain and a custom domain (section 23).
	must(200, first(do("PUT", "/api/account/subdomain/", `{"subdomain":"keys`+sid+`"}`)), "a subdomain")
	must(200, first(do("GET", "/api/account/subdomain/", "")), "the subdomain")
	domain := "surveys.keys-" + sid + ".example"
	code, dom := do("POST", "/api/account/domains/", `{"domain":"`+domain+`"}`)
	must(201, code, "claim a domain")
	verification, _ := dom["verification"].(map[string]any)
	dnsSrv.SetTXT(fmt.Sprint(verification["name"]), fmt.Sprint(verification["value"]))
	dnsSrv.SetCNAME(domain, fmt.Sprint(dom["cname_target"]))
	must(200, first(do("POST", "/api/account/domains/"+id(dom, "id")+"/verify/", "")), "verify a domain")
	// A second, which the domain check below releases.
	domain2 := "surveys2.keys-" + sid + ".example"
	code, dom2 := do("POST", "/api/account/domains/", `{"domain":"`+domain2+`"}`)
	must(201, code, "claim a second domain")
	verification, _ = dom2["verification"].(map[string]any)
	dnsSrv.SetTXT(fmt.Sprint(verification["name"]), fmt.Sprint(verification["value"]))
	dnsSrv.SetCNAME(domain2, fmt.Sprint(dom2["cname_target"]))
	must(200, first(do("POST", "/api/account/domains/"+id(dom2, "id")+"/verify/", "")), "verify the second domain")
	must(200, first(do("GET", "/api/account/domains/", "")), "domains")
	must(200, first(do("GET", "/api/account/domains/"+id(dom, "id")+"/", "")), "a domain")

	// A theme's background image (section 22): an upload started, the
	// image removed (a member removes it again below).
	code, th := do("POST", "/api/themes/", `{"background_color":"#EEEEEE"}`)
	must(201, code, "create a theme")
	tid := id(th, "id")
	code, _ = do("POST", "/api/themes/"+tid+"/background-image/", `{"file_name":"a.png","content_type":"image/png","size":100}`)
	must(201, code, "start a background image")
	// A real picture through the presigned POST, then the upload's finish.
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	code, picStart := do("POST", "/api/themes/"+tid+"/background-image/", `{"file_name":"b.png","content_type":"image/png","size":`+fmt.Sprint(pic.Len())+`}`)
	must(201, code, "start a background image to finish")
	var upload struct {
		Upload string `json:"upload"`
		uploads.Post
	}
	if b, err := json.Marshal(picStart); err != nil || json.Unmarshal(b, &upload) != nil || upload.Upload == "" {
		t.Fatalf("a background image's start: %v", picStart)
	}
	if code := testenv.PostFile(t, upload.Post, pic.Bytes()); code/100 != 2 {
		t.Fatalf("POST to S3: %d", code)
	}
	must(200, first(do("PUT", "/api/themes/"+tid+"/background-image/", `{"upload_id":"`+upload.Upload+`"}`)), "finish a background image")
	must(200, first(do("GET", "/api/themes/"+tid+"/", "")), "a theme")
	must(200, first(do("PATCH", "/api/themes/"+tid+"/", `{"background_color":"#DDDDDD"}`)), "a theme's change")
	code, _ = do("DELETE", "/api/themes/"+tid+"/background-image/", "")
	must(204, code, "remove a background image")

	// Templates and copies.
	do("GET", "/api/templates/", "")
	do("GET", "/api/templates/customer-satisfaction-survey/", "")
	code, started := do("POST", "/api/v2/surveys/", `{"template":"customer-satisfaction-survey","folder_id":`+fid+`}`)
	must(201, code, "start from a template")
	code, byID := do("POST", "/api/v2/surveys/", `{"template":104,"folder_id":`+fid+`}`)
	must(201, code, "start from a template by id")
	do("DELETE", "/api/v2/surveys/"+id(byID, "id")+"/", "")
	code, copied := do("POST", "/api/v2/surveys/"+sid+"/copy/", `{}`)
	must(201, code, "copy")
	do("DELETE", "/api/v2/surveys/"+id(copied, "id")+"/", "")
	do("POST", "/api/v2/surveys/"+id(copied, "id")+"/restore/", "")
	do("DELETE", "/api/v2/surveys/"+id(started, "id")+"/", "")

	// Webhooks: a receiver that fails, so deliveries retry and the breaker counts.
	var recvOK atomic.Bool
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if recvOK.Load() {
			w.WriteHeader(200)
			return
		}
		w.WriteHeader(500)
	}))
	defer recv.Close()
	code, hook := do("POST", "/api/surveys/"+sid+"/webhooks/", `{"url":"`+recv.URL+`/in"}`)
	must(201, code, "webhook")
	wid := id(hook, "id")
	// A second webhook, of partials only (section 20's response.partial):
	// the dispatch reads a partial's answers, its deltas in its session's
	// partition (or the responses' for a session sealed before).
	must(201, first(do("POST", "/api/surveys/"+sid+"/webhooks/", `{"url":"`+recv.URL+`/partials","events":["response.partial"]}`)), "a partials' webhook")
	// A third, of domain.suspended (section 23): the domain check's notice.
	must(201, first(do("POST", "/api/surveys/"+sid+"/webhooks/", `{"url":"`+recv.URL+`/domains","events":["domain.suspended"]}`)), "a domains' webhook")
	do("GET", "/api/surveys/"+sid+"/webhooks/", "")
	// An email notification: its delivery reads the survey and spends the
	// sending budgets (section 21).
	code, notes := do("POST", "/api/v2/surveys/"+sid+"/notifications/", `{"sending_method":1,"recipients":["owner@example.com"]}`)
	must(201, code, "email notification")
	do("GET", "/api/v2/surveys/"+sid+"/notifications/", "")
	notePath := "/api/v2/surveys/" + sid + "/notifications/" + id(notes, "id") + "/"
	must(200, first(do("GET", notePath, "")), "a notification")
	if code, out := do("PATCH", notePath, `{"recipients":["owner@example.com","other@example.com"]}`); code != 200 {
		t.Fatalf("a notification's change: %d %v", code, out)
	}

	// Responders and pages.
	var pubHdr http.Header // the last public answer's headers
	pub := func(method, path, body string, hdr ...string) (int, map[string]any) {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			if hdr[i] == "Host" {
				req.Host = hdr[i+1]
				continue
			}
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		pubHdr = rec.Header()
		var out map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
		return rec.Code, out
	}
	ps := "/api/public/surveys/" + url.PathEscape(slug)
	pub("GET", ps+"/", "")
	if urls, _ := hashes["urls"].([]any); len(urls) > 0 {
		if u, err := url.Parse(fmt.Sprint(urls[0])); err == nil {
			pub("GET", ps+"/variables/?qs="+url.QueryEscape(u.Query().Get("qs")), "")
		}
	}
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"edit_response_enabled":true}`)), "edit_response_enabled")
	must(200, first(pub("GET", ps+"/challenge/", "")), "a challenge")
	code, sess := pub("POST", ps+"/sessions/", `{}`)
	must(201, code, "session")
	// Choice A: the quota's condition, so the response takes a place (CAP#).
	submit := `{"session":"` + sess["session"].(string) + `","answers":{"` + qid + `":"Ada","` + id(ch, "id") + `":[` + choice + `]}}`
	code, resp := pub("POST", ps+"/responses/", submit, "Idempotency-Key", "k1")
	must(201, code, "response")
	rid := id(resp, "id")
	pub("POST", ps+"/responses/", submit, "Idempotency-Key", "k1") // the replay: the key's item
	// The session responded, another key: refused, through the API and
	// through the plain form (before the transaction: the lost race's read
	// of the claim needs two at once, and stays untraveled).
	if code, out := pub("POST", ps+"/responses/", submit, "Idempotency-Key", "k1-again"); code < 400 {
		t.Fatalf("a responded session's second response: %d %v, want it refused", code, out)
	}
	if code, _ := pub("POST", "/s/"+url.PathEscape(slug)+"/", "session="+url.QueryEscape(sess["session"].(string))+"&idempotency_key=form-again&a"+qid+"=Ada",
		"Content-Type", "application/x-www-form-urlencoded"); code < 400 {
		t.Fatalf("a responded session's second response by the plain form: %d, want it refused", code)
	}
	edit := `{"edit_token":"` + fmt.Sprint(resp["edit_token"]) + `","answers":{"` + qid + `":"Ada L."}}`
	must(200, first(pub("PUT", ps+"/responses/"+id(resp, "id")+"/", edit)), "a response's edit (section 16)")
	// A partial (section 20): its session's items, its list entry (PIDX#).
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"partial_responses":true}`)), "partial_responses")
	code, psess := pub("POST", ps+"/sessions/", `{}`)
	must(201, code, "a partial's session")
	// Its answers pass 300 bytes, so the save writes a delta (SESSION#..#D#):
	// the dispatch's response.partial and the owner's list read it.
	long := strings.Repeat("Cy ", 120)
	code, _ = pub("PUT", ps+"/partial/", `{"session":"`+psess["session"].(string)+`","page":0,"answers":{"`+qid+`":"`+long+`"}}`)
	must(204, code, "a partial")
	resume := pubHdr.Get("Resume-Token")
	if code, out := pub("POST", ps+"/uploads/", `{"session":"`+psess["session"].(string)+`","element":`+id(fileQ, "id")+`,"file_name":"a.png","content_type":"image/png","size":10}`); code != 201 {
		t.Fatalf("an upload's start: %d %v", code, out)
	}
	code, _ = pub("POST", ps+"/resume/", `{"token":"`+resume+`"}`)
	must(200, code, "resume a partial")
	// Another session's partial, then its response: the tally deletes the
	// partial's list entry (PIDX#), reading the deltas past its header on
	// the session's own partition.
	code, rsess := pub("POST", ps+"/sessions/", `{}`)
	must(201, code, "a session that saves, then responds")
	code, _ = pub("PUT", ps+"/partial/", `{"session":"`+rsess["session"].(string)+`","page":0,"answers":{"`+qid+`":"Rae"}}`)
	must(204, code, "a partial before its response")
	code, _ = pub("POST", ps+"/responses/", `{"session":"`+rsess["session"].(string)+`","answers":{"`+qid+`":"Rae"}}`, "Idempotency-Key", "k-rae")
	must(201, code, "the response that replaces its partial")
	// A session sealed before sessions had partitions of their own
	// (responding.Session.OwnPartition false): its partial, its resume
	// and its submission keep its items in the survey's responses'
	// partitions (store.SessionLegacyPK).
	code, lsess := pub("POST", ps+"/sessions/", `{}`)
	must(201, code, "a session to seal as before")
	legacy := legacySession(t, cfg.sealer, sid, lsess["session"].(string))
	for page, name := range []string{long, "Lea"} {
		code, _ = pub("PUT", ps+"/partial/", `{"session":"`+legacy+`","page":`+fmt.Sprint(page)+`,"answers":{"`+qid+`":"`+name+`"}}`)
		must(204, code, "a legacy session's partial")
	}
	code, _ = pub("POST", ps+"/resume/", `{"token":"`+pubHdr.Get("Resume-Token")+`"}`)
	must(200, code, "resume a legacy session's partial")
	code, _ = pub("POST", ps+"/responses/", `{"session":"`+legacy+`","answers":{"`+qid+`":"Lee"}}`, "Idempotency-Key", "k-legacy")
	must(201, code, "a legacy session's response")
	// Another, left a partial with a delta: the owner's list reads its
	// delta in the responses' partition.
	code, lsess = pub("POST", ps+"/sessions/", `{}`)
	must(201, code, "a second session to seal as before")
	legacy = legacySession(t, cfg.sealer, sid, lsess["session"].(string))
	code, _ = pub("PUT", ps+"/partial/", `{"session":"`+legacy+`","page":0,"answers":{"`+qid+`":"`+long+`"}}`)
	must(204, code, "a legacy session's partial with a delta")
	// Codes: a unique code spent by its response, a wrong one counted.
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"code_auth":true,"code_auth_is_unique":true,"no_spam":true}`)), "code_auth and no_spam")
	pub("POST", ps+"/authenticate/", `{"code":"NOPE"}`)
	pub("POST", ps+"/authenticate/", `{"code":"ALPHA"}`)
	cookie := "responder=" + responding.NewResponderValue()
	code, sess = pub("POST", ps+"/sessions/", `{"code":"ALPHA"}`, "Cookie", cookie)
	must(201, code, "session with a code")
	code, _ = pub("POST", ps+"/responses/", `{"session":"`+sess["session"].(string)+`","answers":{"`+qid+`":"Bea"}}`, "Idempotency-Key", "k2",
		"Cookie", cookie)
	must(201, code, "response with a code, under no_spam (the one-response guard, RESPONDER#)")
	do("PATCH", "/api/surveys/"+sid+"/settings/", `{"code_auth":false,"no_spam":false}`)
	// A one-use personalised link (is_unique): its session reads the
	// link's use, its response puts it (LINK#).
	_, uniq := do("POST", "/api/surveys/"+sid+"/variables/hashes/", `{"values":[{"tier":"silver","is_unique":true}]}`)
	code, usess := pub("POST", ps+"/sessions/", `{"qs":"`+qsOf(t, uniq)+`"}`)
	must(201, code, "a one-use link's session")
	code, _ = pub("POST", ps+"/responses/", `{"session":"`+usess["session"].(string)+`","answers":{"`+qid+`":"Uma"}}`, "Idempotency-Key", "k-link")
	must(201, code, "a one-use link's response (LINK#)")
	// A withdrawal (store/fence.go): the survey's state unreadable just
	// after a submission's transaction (the fence's read fails once), the
	// response is taken back in one transaction of the responder's own
	// items (the response, its key, its link's use, its no_spam guard,
	// its session's claim, its page in the index) and the answer is 503.
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"no_spam":true}`)), "no_spam")
	_, uniq = do("POST", "/api/surveys/"+sid+"/variables/hashes/", `{"values":[{"tier":"bronze","is_unique":true}]}`)
	cookie = "responder=" + responding.NewResponderValue()
	code, wsess := pub("POST", ps+"/sessions/", `{"qs":"`+qsOf(t, uniq)+`"}`, "Cookie", cookie)
	must(201, code, "a session to withdraw")
	// fence serves req with the fence's read of the survey's state (the
	// first GetItem after its transaction) failing: 503, withdrawn.
	fence := func(req *http.Request, what string) {
		t.Helper()
		type fenced struct{}
		var committed, failed atomic.Bool
		restore := localaws.InjectFaults(func(ctx context.Context, service, op string) error {
			if ctx.Value(fenced{}) == nil || service != "DynamoDB" {
				return nil
			}
			if op == "TransactWriteItems" {
				committed.Store(true)
			} else if committed.Load() && op == "GetItem" {
				failed.Store(true)
				return &types.InternalServerError{Message: aws.String("injected: the survey's state unreadable")}
			}
			return nil
		})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(context.WithValue(req.Context(), fenced{}, true)))
		restore()
		if rec.Code != 503 || !failed.Load() {
			t.Fatalf("%s whose fence cannot read the state: %d %s (its read failed: %v), want 503 after its withdrawal", what, rec.Code, rec.Body, failed.Load())
		}
	}
	req := httptest.NewRequest("POST", ps+"/responses/", strings.NewReader(`{"session":"`+wsess["session"].(string)+`","answers":{"`+qid+`":"Wit"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "k-fenced")
	req.Header.Set("Cookie", cookie)
	fence(req, "a submission")
	// The plain form (no script), as the responders' API: with code_auth
	// a wrong code counted (GUESSES#) and a right one spent (CODES#), a
	// one-use link's use (LINK#), no_spam's guard (RESPONDER#); and its
	// withdrawal, which gives its code back.
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"code_auth":true,"code_auth_is_unique":true}`)), "code_auth")
	must(201, first(do("POST", "/api/surveys/"+sid+"/settings/authentication-codes/", `["GAMMA","DELTA"]`)), "two more codes")
	form := "/s/" + url.PathEscape(slug) + "/"
	formCT := "application/x-www-form-urlencoded"
	if code, _ := pub("POST", form, "code=NOPE&idempotency_key=f-bad&a"+qid+"=Fay", "Content-Type", formCT); code < 400 {
		t.Fatalf("the plain form with a wrong code: %d, want it refused", code)
	}
	for i, c := range []string{"GAMMA", "DELTA"} {
		_, uniq = do("POST", "/api/surveys/"+sid+"/variables/hashes/", `{"values":[{"tier":"form`+c+`","is_unique":true}]}`)
		body := "code=" + c + "&qs=" + url.QueryEscape(qsOf(t, uniq)) + "&idempotency_key=f-" + c + "&a" + qid + "=Fay"
		cookie = "responder=" + responding.NewResponderValue()
		if i == 0 {
			must(200, first(pub("POST", form, body, "Content-Type", formCT, "Cookie", cookie)), "the plain form with a code and a one-use link, under no_spam")
			continue
		}
		req := httptest.NewRequest("POST", form, strings.NewReader(body))
		req.Header.Set("Content-Type", formCT)
		req.Header.Set("Cookie", cookie)
		fence(req, "the plain form's submission")
	}
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"code_auth":false}`)), "code_auth off")
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"no_spam":false}`)), "no_spam off")
	// Captcha, a phone number's sign-in on a phone-limited survey (section
	// 18: PHONES#, the sending budgets BUDGET#, spent challenges
	// CHALLENGE#), and the answer sheet its response is shown.
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"captcha_needed":true,"phone_number_auth":true,"phone_numbers_limited":true,`+
		`"show_answer_sheet_to_responder":true}`)), "captcha_needed, phone_number_auth, phone_numbers_limited, the answer sheet")
	solved := func() string {
		t.Helper()
		code, is := pub("GET", ps+"/challenge/", "")
		must(200, code, "a challenge")
		return `{"challenge":"` + is["challenge"].(string) + `","nonce":"` + challenge.Solve(is["salt"].(string), int(is["difficulty"].(float64))) + `"}`
	}
	code, vsess := pub("POST", ps+"/sessions/", `{"captcha":`+solved()+`}`)
	must(201, code, "a captcha's session")
	code, ver := pub("POST", ps+"/verifications/", `{"session":"`+vsess["session"].(string)+`","channel":"sms","address":"+989121234567","captcha":`+solved()+`}`)
	must(202, code, "a sign-in code sent to a listed number")
	code, conf := pub("POST", ps+"/verifications/confirm/", `{"session":"`+vsess["session"].(string)+`","verification":"`+ver["verification"].(string)+
		`","code":"`+texts.lastCode(t, "+989121234567")+`"}`)
	must(200, code, "a sign-in code confirmed")
	code, resp = pub("POST", ps+"/responses/", `{"session":"`+conf["session"].(string)+`","answers":{"`+qid+`":"Pho"}}`, "Idempotency-Key", "k-phone")
	must(201, code, "a signed-in response")
	must(200, first(pub("GET", "/s/"+url.PathEscape(slug)+"/sheet/"+url.PathEscape(fmt.Sprint(resp["sheet_token"]))+"/", "")), "the answer sheet")
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"captcha_needed":false,"phone_number_auth":false,"phone_numbers_limited":false,`+
		`"show_answer_sheet_to_responder":false}`)), "captcha, sign-in and the sheet off")
	// Serving by host (section 23): the account's subdomain and its custom
	// domain resolve to its account (SUBDOMAIN#, DOMAIN#, ACCOUNT#).
	for _, host := range []string{"keys" + sid + ".localhost", domain} {
		must(200, first(pub("GET", ps+"/", "", "Host", host)), "the survey on "+host)
		must(200, first(pub("GET", "/s/"+url.PathEscape(slug)+"/", "", "Host", host)), "the page on "+host)
	}
	// The limits' per-survey counts: a survey's window (a second) is
	// counted in the table every few requests of a container, in shards
	// summed by a Query (shared/ratelimit). Requests until each function
	// made it (bounded).
	for fn, path := range map[string]string{"RespondersFunction": ps + "/", "PagesFunction": "/s/" + url.PathEscape(slug) + "/"} {
		for i := 0; !madeCall(logFor(fn), "dynamodb:Query", "RATE#"); i++ {
			if i == 500 {
				t.Fatalf("%s: %d requests of %s made no Query of the survey's rate counts", fn, i, path)
			}
			must(200, first(pub("GET", path, "")), "a burst of "+path)
		}
	}
	// The plain form (no script): its submission, as the responders' (shared/responding).
	must(200, first(pub("POST", "/s/"+url.PathEscape(slug)+"/", "idempotency_key=form1&a"+qid+"=Dee&a"+id(ch, "id")+"="+choice, "Content-Type", "application/x-www-form-urlencoded")),
		"the plain form's submission, answering the quota's choice (CAP#)")
	pub("GET", "/r/"+url.PathEscape(sv["report_code"].(string))+"/", "")
	pub("GET", "/s/"+url.PathEscape(sv["preview_code"].(string))+"/", "") // the WordPress plugins' embed (contract section 21)
	// The plugins' sign-in, with the key in the body, and their user read.
	pub("POST", "/api/whoami/", `{"authorization":"API-Key `+key+`"}`)
	pub("POST", "/api/whoami/", `{"authorization":"API-Key nope"}`) // a failed body key, counted per client (RATE#)
	do("GET", "/rest-auth/user/", "")
	must(200, first(pub("GET", "/api/oembed/?url="+url.QueryEscape("http://127.0.0.1/s/"+slug+"/"), "")), "oEmbed")

	// The stream: the tally and the dispatch, then the deliveries (which
	// fail: a retry and a breaker count), the retrier, the sweeper.
	recs := testenv.StreamRecords(t)
	var all []events.DynamoDBEventRecord
	for shard, rs := range recs {
		tl := tally.New(tally.Deps{Store: st})
		ev := events.DynamoDBTimeWindowEvent{TimeWindowProperties: events.TimeWindowProperties{ShardID: shard}}
		ev.Records = rs
		if _, err := tl.Handle(tagged("TallyFunction", t.Context()), ev); err != nil {
			t.Fatal(err)
		}
		all = append(all, rs...)
	}
	if _, err := (dispatch.New(dispatch.Deps{Store: st, Queue: jobs})).Handle(tagged("DispatchFunction", t.Context()), events.DynamoDBEvent{Records: all}); err != nil {
		t.Fatal(err)
	}
	clock := &testClock{t: time.Now()}
	d := deliver.New(deliver.Deps{Store: st, Opener: cfg.sealer, Queue: jobs, Client: webhook.Guard{AllowLoopback: true}.Client(2 * time.Second),
		Delays: []time.Duration{time.Hour}, MaxDelay: -1, Now: clock.now, Sender: sendNothing{}, Budgets: sending.NewBudgets(st, clock.now)})
	sent := jobs.take()
	if len(sent) == 0 {
		t.Fatal("the dispatch queued no delivery")
	}
	// The webhook's job of the first response first: the breaker's
	// traffic below follows it (a response withdrawn above would fail
	// its deliveries without a request, and the breaker would not open).
	for i, j := range sent {
		if fmt.Sprint(j.WebhookID) == wid && fmt.Sprint(j.ResponseID) == rid {
			sent[0], sent[i] = sent[i], sent[0]
			break
		}
	}
	if fmt.Sprint(sent[0].WebhookID) != wid || fmt.Sprint(sent[0].ResponseID) != rid {
		t.Fatalf("the dispatch queued no delivery of response %s to webhook %s", rid, wid)
	}
	var batch events.SQSEvent
	for i, j := range sent {
		b, _ := json.Marshal(j)
		batch.Records = append(batch.Records, events.SQSMessage{MessageId: fmt.Sprint(i), Body: string(b)})
	}
	if _, err := d.Handle(tagged("DeliverFunction", t.Context()), batch); err != nil {
		t.Fatal(err)
	}
	// More events of the response, until the breaker opens and holds one
	// back; then, the pause over, a success closes it and resumes what it
	// held (the paused index).
	deliverNew := func(n int) {
		t.Helper()
		var ev events.SQSEvent
		for i := range n {
			dl := survey.Delivery{WebhookID: sent[0].WebhookID, SurveyID: sent[0].SurveyID, ResponseID: sent[0].ResponseID,
				Event: survey.EventResponseSubmitted, Created: time.Now().Add(time.Duration(i+1) * time.Millisecond), Status: survey.DeliveryPending}
			if _, _, err := st.CreateDelivery(t.Context(), dl, clock.now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			j := webhook.Job{SurveyID: dl.SurveyID, WebhookID: dl.WebhookID, ResponseID: dl.ResponseID, Delivery: dl.ID()}
			ev.Records = append(ev.Records, events.SQSMessage{MessageId: fmt.Sprint(i), Body: j.Encode()})
			time.Sleep(2 * time.Millisecond)
		}
		for _, m := range ev.Records {
			if _, err := d.Handle(tagged("DeliverFunction", t.Context()), events.SQSEvent{Records: []events.SQSMessage{m}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	deliverNew(webhook.BreakerThreshold + 1)
	clock.set(clock.now().Add(webhook.MaxPause + time.Second)) // whatever the pause the failures came to
	recvOK.Store(true)
	deliverNew(1)
	if resumed := jobs.take(); len(resumed) == 0 {
		t.Fatal("the breaker's closing resumed nothing: the traffic no longer covers the paused index")
	}
	recvOK.Store(false)
	if _, err := retrier.New(retrier.Deps{Store: st, Queue: jobs}).Run(tagged("RetrierFunction", t.Context()), time.Now().Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	// A copy that died half-way (its process gone after its first batch
	// of items): its marker and items stay until the sweeper removes them
	// (a Query of its partition, BatchWriteItem deletes, the marker's
	// DeleteItem).
	type dyingCopy struct{}
	dctx := context.WithValue(t.Context(), dyingCopy{}, true)
	var batches atomic.Int64
	restore := localaws.InjectFaults(func(ctx context.Context, service, op string) error {
		if ctx.Value(dyingCopy{}) == nil || service != "DynamoDB" {
			return nil
		}
		if batches.Load() > 0 {
			return errors.New("injected: the process died")
		}
		if op == "BatchWriteItem" {
			batches.Add(1)
		}
		return nil
	})
	sidN, _ := strconv.ParseInt(sid, 10, 64)
	fidN, _ := strconv.ParseInt(fid, 10, 64)
	source, err := st.CopySource(dctx, acct.ID, sidN)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.CopySurvey(dctx, source, store.CopySpec{AccountID: acct.ID, FolderID: fidN, Name: "dies", Plan: survey.PlanEnterprise})
	restore()
	if err == nil || batches.Load() == 0 {
		t.Fatalf("the dying copy: %v after %d batches; want it killed after its first", err, batches.Load())
	}
	swept, err := sweeper.New(sweeper.Deps{Store: st}).Run(tagged("SweeperFunction", t.Context()), time.Now().AddDate(100, 0, 0))
	if err != nil || swept.CopiesRemoved == 0 {
		t.Fatalf("the sweep: %+v, %v; want the dead copy removed", swept, err)
	}
	// The daily re-check of verified custom domains (section 23): the
	// records hold; the CNAMEs gone, the domains are suspended and their
	// owner told (the account's domain.suspended webhook, and an email);
	// the first's records back, it is restored (its release below is the
	// owner's); the second, failing past DomainRelease, is released.
	tenants := &cdn.CloudFront{API: outbox.NewCloudFront(nil), Distribution: "E2LOCAL"}
	notifier := &sweeper.Notifier{Store: st, Queue: jobs, Sender: sendNothing{}}
	checker := dnscheck.New(dnsSrv.Addr)
	day0 := time.Now()
	for _, step := range []struct {
		name   string
		change func()
		at     time.Time
		want   sweeper.DomainsResult
	}{
		{"the records hold", func() {}, day0, sweeper.DomainsResult{Checked: 2}},
		{"the CNAMEs gone", func() { dnsSrv.Remove(domain, dns.TypeCNAME); dnsSrv.Remove(domain2, dns.TypeCNAME) }, day0.Add(time.Hour),
			sweeper.DomainsResult{Checked: 2, Suspended: 2}},
		{"the first's CNAME back", func() { dnsSrv.SetCNAME(domain, fmt.Sprint(dom["cname_target"])) }, day0.Add(24 * time.Hour),
			sweeper.DomainsResult{Checked: 2}},
		{"the second failing past DomainRelease", func() {}, day0.Add(time.Hour + survey.DomainRelease + time.Minute),
			sweeper.DomainsResult{Checked: 2, Released: 1}},
	} {
		step.change()
		res, err := sweeper.CheckDomains(tagged("SweeperFunction", t.Context()), st, checker, tenants, step.at, notifier.Notify)
		if err != nil || res != step.want {
			t.Fatalf("the domain check, %s: %+v, %v; want %+v", step.name, res, err, step.want)
		}
	}

	// The owner's side of deliveries and responses.
	do("GET", "/api/surveys/"+sid+"/webhooks/"+wid+"/", "")
	_, dl := do("GET", "/api/surveys/"+sid+"/webhooks/"+wid+"/deliveries/", "")
	if res, _ := dl["results"].([]any); len(res) > 0 {
		do("POST", "/api/surveys/"+sid+"/webhooks/"+wid+"/deliveries/"+fmt.Sprint(res[0].(map[string]any)["id"])+"/retry/", "")
	}
	do("PATCH", "/api/surveys/"+sid+"/webhooks/"+wid+"/", `{"active":true}`)
	do("GET", "/api/surveys/"+sid+"/responses/", "")
	do("GET", "/api/surveys/"+sid+"/responses/?format=csv", "")
	do("GET", "/api/surveys/"+sid+"/responses/?status=partial", "") // GSI1 PARTIALS#, the headers, their deltas
	do("GET", "/api/surveys/"+sid+"/responses/"+rid+"/", "")
	do("GET", "/api/v2/surveys/"+sid+"/responses/results-table/?page=1", "")
	do("GET", "/api/v2/surveys/"+sid+"/responses/export/", "")
	code, job := do("POST", "/api/v2/surveys/"+sid+"/responses/exports/", "")
	must(202, code, "export job")
	ex := responses.NewExporter(responses.ExporterDeps{Store: st, Exports: cfg.exports, Workbook: responses.Workbooks(workbook.New), MaxAttempts: exports.MaxReceives})
	for i, j := range exportJobs.jobs {
		b, _ := json.Marshal(j)
		if _, err := ex.Handle(tagged("ExportsFunction", t.Context()), events.SQSEvent{Records: []events.SQSMessage{{MessageId: fmt.Sprint(i), Body: string(b)}}}); err != nil {
			t.Fatal(err)
		}
	}
	code, job = do("GET", "/api/v2/surveys/"+sid+"/responses/exports/"+fmt.Sprint(job["id"])+"/", "")
	must(200, code, "an export job")
	if link, _ := job["export"].(string); link != "" {
		if u, err := url.Parse(link); err == nil {
			must(302, first(do("GET", u.Path, "")), "an export's download (a redirect to its presigned S3 link)")
		}
	}
	// A member (contract section 19): made, shared the folder with as
	// editor, and reading through every owner function; the owner reads
	// the activity log, then gives the member another key and removes
	// them.
	code, member := do("POST", "/api/members/", `{"email":"member@example.com"}`)
	must(201, code, "create a member")
	sub := id(member, "sub_user")
	code, _ = do("PUT", "/api/folders/"+fid+"/shared-with/", `[{"sub_user":`+sub+`,"role":"editor"}]`)
	must(200, code, "share the folder")
	owner := key
	key = member["api_key"].(string)
	for _, path := range []string{"/api/whoami/", "/api/folders/", "/api/v2/surveys/" + sid + "/", "/api/v2/surveys/" + sid + "/questions/",
		"/api/surveys/" + sid + "/settings/", "/api/surveys/" + sid + "/variables/", "/api/surveys/" + sid + "/webhooks/",
		"/api/surveys/" + sid + "/responses/"} {
		code, _ = do("GET", path, "")
		must(200, code, "a member's GET "+path)
	}
	code, _ = do("DELETE", "/api/themes/"+tid+"/background-image/", "")
	must(204, code, "a member removes a background image")
	// An editor's writes under the survey: each checks their share in its
	// transaction (store.runTx: ConditionCheckItem on their item).
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/settings/", `{"hide_progressbar":false}`)), "a member's settings")
	must(201, first(do("POST", "/api/v2/surveys/"+sid+"/questions/", `{"type":2,"title":"Member's"}`)), "a member's question")
	must(201, first(do("POST", "/api/surveys/"+sid+"/variables/", `{"name":"member","variable_source":0}`)), "a member's variable")
	must(200, first(do("PATCH", "/api/surveys/"+sid+"/webhooks/"+wid+"/", `{"active":true}`)), "a member's webhook change")
	must(204, first(do("DELETE", "/api/surveys/"+sid+"/responses/"+rid+"/", "")), "a member's response delete")
	key = owner
	code, _ = do("GET", "/api/members/", "")
	must(200, code, "list members")
	code, _ = do("GET", "/api/activity/", "")
	must(200, code, "the activity log")
	code, _ = do("POST", "/api/members/"+sub+"/key/", "")
	must(201, code, "a member's new key")
	code, _ = do("DELETE", "/api/members/"+sub+"/", "")
	must(204, code, "remove a member")
	do("DELETE", "/api/surveys/"+sid+"/responses/"+rid+"/", "")
	do("DELETE", "/api/surveys/"+sid+"/webhooks/"+wid+"/", "")
	do("DELETE", "/api/surveys/"+sid+"/settings/authentication-codes/", "")
	do("DELETE", "/api/surveys/"+sid+"/settings/phone-numbers/", "")
	do("DELETE", "/api/v2/surveys/"+sid+"/questions/"+qid+"/", "")
	do("DELETE", "/api/surveys/"+sid+"/variables/"+id(vars, "id")+"/", "")
	must(204, first(do("DELETE", quotaPath, "")), "a quota's delete")
	must(204, first(do("DELETE", notePath, "")), "a notification's delete")
	must(204, first(do("DELETE", "/api/account/domains/"+id(dom, "id")+"/", "")), "a domain's release")
	must(204, first(do("DELETE", "/api/account/subdomain/", "")), "a subdomain's release")
	must(204, first(do("DELETE", "/api/themes/"+tid+"/", "")), "a theme's delete")
	do("DELETE", "/api/folders/"+fid+"/", "")

	// Every route of every function answered a success at least once,
	// or says in unrouted why this traffic cannot reach it.
	for _, miss := range routes.missing() {
		if why, ok := unrouted[miss]; ok {
			if testing.Verbose() {
				t.Logf("%s not driven by this traffic: %s", miss, why)
			}
			continue
		}
		t.Errorf("%s: no request of the traffic reached it with a success: drive it, or say in unrouted why not", miss)
	}
	for k := range unrouted {
		if routes.driven(k) {
			t.Errorf("%s is in unrouted but the traffic drives it: drop it from unrouted", k)
		}
	}

	tpl := loadTemplate(t)
	for fn, l := range logs {
		pol := tablePolicy(t, tpl, fn)
		used := map[string]bool{}     // statement index / pattern
		traveled := map[string]bool{} // action / pattern
		for _, a := range l.Accesses() {
			i, p, ok := pol.allowedBy(a)
			if !ok {
				t.Errorf("%s: %s on %s %q: not allowed by its policy in template.yaml", fn, a.Action, orTable(a.Index), a.Key)
				continue
			}
			used[fmt.Sprint(i, p)] = true
			traveled[a.Action+" "+p] = true
		}
		paths := untraveledOf(t, fn)
		// Least privilege: a statement's pattern no call of the traffic
		// needed is a grant to explain (an untraveled path that needs one
		// of the statement's actions on it) or to drop.
		for i, st := range pol {
			for _, p := range st.patterns {
				if used[fmt.Sprint(i, p)] {
					continue
				}
				if u, ok := explains(paths, st.actions, p); ok {
					if testing.Verbose() {
						t.Logf("%s: %s (%v) not reached by this traffic: %s", fn, p, st.actions, u.why)
					}
					continue
				}
				t.Errorf("%s: %v on %s is allowed but no call of the traffic needed it: drop it, or say in untraveled which path needs which action", fn, st.actions, p)
			}
		}
		// An untraveled path's actions must be granted on its pattern (the
		// traffic cannot show that IAM would refuse it; the policy can), and
		// an action the traffic travels on it is stale in the entry: the
		// traffic checks it.
		for _, u := range paths {
			for _, a := range u.actions {
				if !pol.grants(a, u.pattern) {
					t.Errorf("%s: the path needs %s on %s, which no statement of its policy grants: IAM would refuse it in AWS", u.key, a, u.pattern)
				}
				if traveled[a+" "+u.pattern] && !cacheDependent[u.key] {
					t.Errorf("%s: the traffic travels %s on %s: drop it from untraveled", u.key, a, u.pattern)
				}
			}
		}
		if testing.Verbose() {
			t.Logf("%s: %v", fn, prefixesOf(l.Accesses()))
		}
	}
	for _, fn := range []string{"FoldersFunction", "SurveysFunction", "ElementsFunction", "SettingsFunction", "VariablesFunction",
		"AccountFunction", "TemplatesFunction", "RespondersFunction", "PagesFunction", "ResponsesFunction", "WebhooksFunction",
		"TallyFunction", "DispatchFunction", "DeliverFunction", "RetrierFunction", "SweeperFunction", "ExportsFunction", "ThemeImagesFunction"} {
		if len(logFor(fn).Accesses()) == 0 {
			t.Errorf("%s: the traffic made no DynamoDB call: the test no longer covers it", fn)
		}
	}
}

// untraveled are store paths the traffic of TestLeadingKeysTraffic does
// not reach, by function, the actions the path needs (without dynamodb:,
// comma-separated) and the pattern of template.yaml that grants them,
// each with the code path. Every action named must be granted on the
// pattern, and none may be one the traffic travels on it.
var untraveled = map[string]string{
	// survey.full (section 25): this traffic sets no response limit.
	"DispatchFunction Query SURVEY#*": "survey.full: the caps of a survey whose allowance filled (store.CapsFilled reads its collection, cached: this test's " +
		"one store serves every function, so the dispatch reads it or not as the cache has it; in AWS its own container reads it)",
	// A view that adds itself to the views item (store.CountView): this
	// test's one store serves every function, so a minute the responders'
	// views found the item without room (or without a count yet) the
	// page's views go as records without trying; in AWS each container
	// tries its own.
	"PagesFunction UpdateItem SURVEY#*": "store.CountView: the hosted page's view adds itself to its survey's views item (addView)",
	// A fence's withdrawal its request ran out of time for (a race this
	// traffic does not run; store TestWithdrawalOutlivesItsRequest runs
	// it through the dispatch): store.FinishWithdrawal.
	"DispatchFunction DeleteItem RESPONSES#*":       "store.FinishWithdrawal: the response and its key deleted (the traffic's withdrawals finish in their request: the record read, GetItem, is traveled)",
	"DispatchFunction GetItem,DeleteItem SESSION#*": "store.FinishWithdrawal: a session's claim (a session's own key's record) read and deleted",
	"DispatchFunction DeleteItem LINK#*":            "store.FinishWithdrawal: a personalised link's use taken back",
	"DispatchFunction DeleteItem RESPONDER#*":       "store.FinishWithdrawal: the responder's guard item taken back",
	"DispatchFunction Query,UpdateItem RPAGES#*":    "store.FinishWithdrawal: the page index's state read, the response's count taken back",
	"DispatchFunction UpdateItem CODES#*":           "store.FinishWithdrawal: a unique code spent no more",
	"DispatchFunction UpdateItem CAP#*":             "store.FinishWithdrawal: the response's places given back",
	// Every write of these functions commits its entry in its transaction
	// (PutItem); the BatchWriteItem is for an entry replaced after it (a
	// status other than the method's usual) or a write runTx did not carry.
	"SettingsFunction BatchWriteItem ACTIVITY#*": "store.RecordActivity: an entry replaced or recorded after its write (BatchWriteItem)",
	"ElementsFunction BatchWriteItem ACTIVITY#*": "store.RecordActivity: an entry replaced or recorded after its write (BatchWriteItem)",
	// Their retries, export jobs, minted links, domain verifies and member
	// removals now commit their entry as answered; what is left is a write
	// whose store call wrote nothing (a subdomain PUT of the name it has).
	"ResponsesFunction BatchWriteItem ACTIVITY#*": "store.RecordActivity: an entry replaced or recorded after its write (BatchWriteItem)",
	"VariablesFunction BatchWriteItem ACTIVITY#*": "store.RecordActivity: an entry replaced or recorded after its write (BatchWriteItem)",
	"AccountFunction BatchWriteItem ACTIVITY#*":   "store.RecordActivity: an entry recorded after a write that wrote nothing (a subdomain PUT of its own name)",
	"WebhooksFunction BatchWriteItem ACTIVITY#*":  "store.RecordActivity: an entry replaced or recorded after its write (BatchWriteItem)",
	// Data keys: one sealer serves every function in this test and caches
	// the current key, so only the first function to seal reads or
	// stores it; each function's own sealer does in AWS.
	"WebhooksFunction GetItem,PutItem DATAKEY*":   "links.Sealer: webhook secrets are sealed under the links' data key (read, or stored when rotated)",
	"DeliverFunction GetItem DATAKEY*":            "links.Sealer.OpenFor: a webhook secret's data key, read on a cache miss",
	"ResponsesFunction GetItem,PutItem DATAKEY*":  "sealed cursors and export links: the links' data key (read, or stored when rotated)",
	"RespondersFunction GetItem,PutItem DATAKEY*": "sealed sessions and links: the links' data key (read, or stored when rotated)",
	"PagesFunction GetItem,PutItem DATAKEY*":      "sealed sessions and links: the links' data key (read, or stored when rotated)",
	// Responders: paths of races and of settings this traffic does not
	// turn on.
	"PagesFunction GetItem SESSION#*":     "the plain form's lost race: the read of its session's claim (as the responders')",
	"RespondersFunction UpdateItem AGG#*": "an edit of a response counted before the tally (no mark: store/edit.go moveReport) moves its report shard directly",
	// Pages: the plain form (no script) submits through the same store
	// calls as the responders' API (shared/responding).
	"PagesFunction UpdateItem COUNTER#*": "the plain form's response ids",
	// Section 25: a survey with a response_limit or quotas (store/places.go).
	"PagesFunction GetItem CAP#*":           "the plain form's submission that finds its allowance full reads the others (as the responders')",
	"RespondersFunction Query RTIME#*":      "a response limit whose writer failed before counting its base: the first submission that needs it counts it (store/limitbase.go)",
	"PagesFunction Query RTIME#*":           "a response limit whose writer failed before counting its base: the plain form's submission counts it (store/limitbase.go)",
	"ResponsesFunction UpdateItem SURVEY#*": "deleting a response counted before the tally (no mark: an import) lowers submitted_responses in its transaction (store/responses_read.go DeleteResponse)",
	"ResponsesFunction UpdateItem AGG#*":    "deleting a response counted before the tally (no mark: an import) moves its report shard in its transaction (store/responses_read.go DeleteResponse)",
}

// untraveledPath is an entry of untraveled.
type untraveledPath struct {
	key, pattern, why string
	actions           []string // with dynamodb:
}

// untraveledOf are fn's entries of untraveled.
func untraveledOf(t *testing.T, fn string) []untraveledPath {
	t.Helper()
	var out []untraveledPath
	for k, why := range untraveled {
		f := strings.Fields(k)
		if len(f) != 3 {
			t.Errorf("untraveled %q: want function, actions and pattern", k)
			continue
		}
		if f[0] != fn {
			continue
		}
		u := untraveledPath{key: k, pattern: f[2], why: why}
		for _, a := range strings.Split(f[1], ",") {
			u.actions = append(u.actions, "dynamodb:"+a)
		}
		out = append(out, u)
	}
	return out
}

// explains answers the untraveled path that needs one of actions on
// pattern.
func explains(paths []untraveledPath, actions []string, pattern string) (untraveledPath, bool) {
	for _, u := range paths {
		if u.pattern == pattern && slices.ContainsFunc(u.actions, func(a string) bool { return slices.Contains(actions, a) }) {
			return u, true
		}
	}
	return untraveledPath{}, false
}

// cacheDependent are untraveled grants the traffic reaches or not as the
// one store's caches, shared by every function here, have it: exempt
// from the stale check.
var cacheDependent = map[string]bool{"DispatchFunction Query SURVEY#*": true, "PagesFunction UpdateItem SURVEY#*": true}

// unrouted are routes (function, method and path) that
// TestLeadingKeysTraffic does not drive to a success, each with why.
var unrouted = map[string]string{
	// Handlers that take no store: embedded files, S3 objects, the schema.
	"PagesFunction GET /":                                "the home page: embedded, no store (handleHome)",
	"PagesFunction GET /docs/":                           "the docs' index: embedded, no store",
	"PagesFunction GET /docs/{topic}/":                   "a docs topic: embedded, no store",
	"PagesFunction GET /docs/images/{file}/":             "a docs image: embedded, no store",
	"PagesFunction GET /assets/{name}/":                  "a hashed asset: embedded, no store",
	"PagesFunction GET /s/sw.js/":                        "the service worker: embedded, no store",
	"PagesFunction GET /media/themes/images/{file}/":     "a theme's background image: an S3 object (pages.Media), no DynamoDB call",
	"PagesFunction GET /media/themes/thumbnails/{file}/": "a theme's thumbnail: embedded or S3 (pages.Media), no DynamoDB call",
	"SchemaFunction GET /api/schema/":                    "the OpenAPI document: embedded, no store (the function has no table policy)",
}

// routeCoverage records which routes of which function answered a
// success (below 400), matched as each function's router matches them.
type routeCoverage struct {
	mu    sync.Mutex
	all   []string
	muxes map[string]*http.ServeMux
	hit   map[string]bool
}

func (c *routeCoverage) add(fn string, rs []api.Route) *http.ServeMux {
	c.mu.Lock()
	defer c.mu.Unlock()
	mux := http.NewServeMux()
	for _, r := range rs {
		mux.HandleFunc(r.Method+" "+r.Path+"{$}", func(http.ResponseWriter, *http.Request) {})
		c.all = append(c.all, fn+" "+r.Method+" "+r.Path)
	}
	if c.muxes == nil {
		c.muxes, c.hit = map[string]*http.ServeMux{}, map[string]bool{}
	}
	c.muxes[fn] = mux
	return mux
}

func (c *routeCoverage) served(fn string, mux *http.ServeMux, r *http.Request, status int) {
	if status >= 400 {
		return
	}
	r2 := r.Clone(r.Context())
	if !strings.HasSuffix(r2.URL.Path, "/") {
		r2.URL.Path += "/"
		r2.URL.RawPath = ""
	}
	if _, pattern := mux.Handler(r2); pattern != "" {
		c.mu.Lock()
		c.hit[fn+" "+strings.TrimSuffix(pattern, "{$}")] = true
		c.mu.Unlock()
	}
}

func (c *routeCoverage) driven(k string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hit[k]
}

func (c *routeCoverage) missing() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, k := range c.all {
		if !c.hit[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// statusRecorder keeps the status a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = 200
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) status() int {
	if s.code == 0 {
		return 200
	}
	return s.code
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func first(code int, _ map[string]any) int { return code }

// madeCall reports whether l has a call of action on a key with prefix.
func madeCall(l *awsenv.KeyLog, action, prefix string) bool {
	for _, a := range l.Accesses() {
		if a.Action == action && strings.HasPrefix(a.Key, prefix) {
			return true
		}
	}
	return false
}

// qsOf is the qs parameter of a personalised links answer's first URL.
func qsOf(t *testing.T, hashes map[string]any) string {
	t.Helper()
	urls, _ := hashes["urls"].([]any)
	if len(urls) == 0 {
		t.Fatalf("no link in %v", hashes)
	}
	u, err := url.Parse(fmt.Sprint(urls[0]))
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("qs")
}

// sentCodes is a Sender that keeps the messages it is given.
type sentCodes struct {
	mu  sync.Mutex
	msg []sending.Message
}

func (s *sentCodes) Send(_ context.Context, m sending.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msg = append(s.msg, m)
	return nil
}

// lastCode is the code of the last message sent to address.
func (s *sentCodes) lastCode(t *testing.T, to string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.msg) - 1; i >= 0; i-- {
		if m := sixDigits.FindStringSubmatch(s.msg[i].Body); s.msg[i].To == to && m != nil {
			return m[1] // in the survey language's digits, as a person types it
		}
	}
	t.Fatalf("no code sent to %s", to)
	return ""
}

// legacySession reseals a session token of survey sid as one sealed
// before sessions had partitions of their own (OwnPartition false).
func legacySession(t *testing.T, sealer *links.Sealer, sid, token string) string {
	t.Helper()
	id, err := strconv.ParseInt(sid, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := sealer.OpenFor(t.Context(), links.PurposeSession, id, token)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := responding.DecodeSession(plain)
	if err != nil {
		t.Fatal(err)
	}
	sess.OwnPartition = false
	out, err := sealer.SealFor(t.Context(), links.PurposeSession, id, sess.Encode())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func orTable(index string) string {
	if index == "" {
		return "the table"
	}
	return "index " + index
}

// prefixesOf is a readable summary of accesses: action, index, key prefix.
func prefixesOf(as []awsenv.Access) []string {
	seen := map[string]bool{}
	var out []string
	for _, a := range as {
		p := a.Key
		if i := strings.IndexByte(p, '#'); i >= 0 {
			p = p[:i+1]
		}
		s := strings.TrimPrefix(a.Action, "dynamodb:") + " " + a.Index + " " + p
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
