package webhooks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/webhooks"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const notFound = `{"detail":"Not found."}`

// dns resolves the test's names; anything else does not resolve.
type dns map[string]string

func (d dns) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ip, ok := d[host]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	return []netip.Addr{netip.MustParseAddr(ip)}, nil
}

var names = dns{
	"hooks.example.com": "93.184.216.34", "other.example.com": "93.184.216.35",
	"internal.example.com": "10.0.0.8", "meta.example.com": "169.254.169.254", "loop.example.com": "127.0.0.1", "localhost": "127.0.0.1",
}

// queue records the jobs sent.
type queue struct {
	mu   sync.Mutex
	jobs []webhook.Job
}

func (q *queue) Send(_ context.Context, jobs []webhook.Job, _ time.Duration) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, jobs...)
	return nil
}

type reply struct {
	code   int
	body   string
	dynamo int
	ops    map[string]int
}

type fixture struct {
	st    *store.Store
	h     http.Handler
	key   string
	aid   int64
	sid   int64
	queue *queue
}

func newFixture(t *testing.T, loopback bool) *fixture {
	t.Helper()
	o := testenv.NewOwner(t, survey.PlanPro, "Hooks")
	st, acct, key := o.Store, o.Account, o.Key
	sv, err := st.CreateSurvey(context.Background(), survey.Survey{AccountID: acct.ID, FolderID: o.Folder, Name: "Hooked", Language: 4, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	q := &queue{}
	h := webhooks.New(webhooks.Deps{Auth: api.NewAuthenticator(st), Store: st, Sealer: testenv.Sealer(t), Queue: q,
		Guard: webhook.Guard{Resolver: names, AllowLoopback: loopback}})
	f := &fixture{st: st, h: testenv.Conform(api.ServeAt(testenv.APIBase, api.Mount(h))), key: key, aid: acct.ID, sid: sv.ID, queue: q}
	f.do(t, "GET", "/api/surveys/0/webhooks/", "") // warm the authenticator
	return f
}

func (f *fixture) do(t *testing.T, method, path, body string) reply {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	r := testenv.Serve(f.h, testenv.NewRequest(method, path, f.key, ct, testenv.Body(body)))
	return reply{code: r.Code, body: string(r.Body), dynamo: r.Calls.DynamoDB(), ops: r.Calls.Ops()}
}

func (f *fixture) list() string { return fmt.Sprintf("/api/surveys/%d/webhooks/", f.sid) }
func (f *fixture) detail(wid any) string {
	return fmt.Sprintf("/api/surveys/%d/webhooks/%v/", f.sid, wid)
}

type view struct {
	ID        int64             `json:"id"`
	URL       string            `json:"url"`
	Events    []string          `json:"events"`
	Active    bool              `json:"active"`
	Headers   map[string]string `json:"headers"`
	CreatedAt string            `json:"created_at"`
	Secret    *string           `json:"secret"`
}

func decode[T any](t *testing.T, r reply) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("answer %d %s: %v", r.code, r.body, err)
	}
	return v
}

func TestCreateShowsTheSecretOnceAndSealsIt(t *testing.T) {
	f := newFixture(t, false)
	r := f.do(t, "POST", f.list(), `{"url": "https://hooks.example.com/in?x=1", "headers": {"Authorization": "Bearer abc"}}`)
	if r.code != 201 {
		t.Fatalf("create = %d %s", r.code, r.body)
	}
	v := decode[view](t, r)
	// Warm (id lease and data key in hand): one read and one transaction,
	// and the activity log's entry (contract section 19).
	if again := f.do(t, "POST", f.list(), `{"url": "https://other.example.com/"}`); again.code != 201 ||
		again.ops["DynamoDB.BatchGetItem"] != 1 || again.ops["DynamoDB.TransactWriteItems"] != 1 || again.dynamo != 3 || again.ops["KMS.GenerateDataKey"] != 0 {
		t.Errorf("a warm create made %v", again.ops)
	}
	if v.Secret == nil || !strings.HasPrefix(*v.Secret, "whsec_") || !v.Active || fmt.Sprint(v.Events) != "[response.submitted]" ||
		v.URL != "https://hooks.example.com/in?x=1" || v.Headers["Authorization"] != "Bearer abc" {
		t.Fatalf("created %s", r.body)
	}
	if key, err := webhook.SecretKey(*v.Secret); err != nil || len(key) != 32 {
		t.Fatalf("secret of %d bytes: %v", len(key), err)
	}
	for _, path := range []string{f.list(), f.detail(v.ID)} {
		if got := f.do(t, "GET", path, ""); got.code != 200 || strings.Contains(got.body, "secret") || !strings.Contains(got.body, "hooks.example.com") {
			t.Errorf("GET %s = %d %s", path, got.code, got.body)
		}
	}
	// A dump of the table holds the secret sealed, never in plain text.
	hooks, err := f.st.WebhooksOf(context.Background(), f.sid)
	if err != nil || len(hooks) != 2 {
		t.Fatalf("stored %v %v", hooks, err)
	}
	plain := strings.TrimPrefix(*v.Secret, "whsec_")
	if hooks[0].SealedSecret == "" || strings.Contains(hooks[0].SealedSecret, plain) {
		t.Fatalf("the stored secret is %q", hooks[0].SealedSecret)
	}
	opened, err := testenv.Sealer(t).OpenFor(context.Background(), links.PurposeWebhookSecret, v.ID, hooks[0].SealedSecret)
	if err != nil || string(opened) != *v.Secret {
		t.Fatalf("the sealed secret opens to %q, %v", opened, err)
	}
}

func TestCreateRefuses(t *testing.T) {
	f := newFixture(t, false)
	cases := []struct{ body, want string }{
		{`{}`, `{"url":["This field is required."]}`},
		{`{"url": 5}`, `{"url":["Not a valid string."]}`},
		{`{"url": "not a url"}`, `{"url":["` + webhook.MsgInvalidURL + `"]}`},
		{`{"url": "http://hooks.example.com/"}`, `{"url":["` + webhook.MsgHTTPS + `"]}`},
		{`{"url": "https://10.1.2.3/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://192.168.0.10/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://169.254.169.254/latest/meta-data/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://[fd00:ec2::254]/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://[fe80::1]/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://127.0.0.1/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://internal.example.com/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://meta.example.com/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://loop.example.com/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://nowhere.example.com/"}`, `{"url":["` + webhook.MsgNoHost + `"]}`},
		{`{"url": "http://2852039166/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{`{"url": "https://0xa9fea9fe/"}`, `{"url":["` + webhook.MsgInternal + `"]}`},
		{"{\"url\": \"https://hooks.example.com/\xff\"}", `{"detail":"JSON parse error - invalid UTF-8 byte 0xff at offset 35"}`},
		{`{"url": "https://u:p@hooks.example.com/"}`, `{"url":["` + webhook.MsgUserinfo + `"]}`},
		{`{"url": "https://hooks.example.com/", "events": []}`, `{"events":["This list may not be empty."]}`},
		{`{"url": "https://hooks.example.com/", "events": ["response.deleted"]}`, `{"events":["\"response.deleted\" is not a valid choice."]}`},
		{`{"url": "https://hooks.example.com/", "events": "response.submitted"}`, `{"events":["Expected a list of items but got type \"str\"."]}`},
		{`{"url": "https://hooks.example.com/", "events": null}`, `{"events":["This field may not be null."]}`},
		{`{"url": "https://hooks.example.com/", "active": "yes"}`, `{"active":["Must be a valid boolean."]}`},
		{`{"url": "https://hooks.example.com/", "headers": {"webhook-signature": "x", "X-Ok": "1", "Bad Name": "x"}}`,
			`{"headers":{"webhook-signature":["This header is set by the delivery itself."],"Bad Name":["A header name may contain only letters, digits and !#$%&'*+-.^_` + "`" + `|~."]}}`},
		{`{"url": "https://hooks.example.com/", "headers": {"X-A": "a\r\nInjected: 1"}}`, `{"headers":{"X-A":["A header value may not contain control characters."]}}`},
		// Section 3 as amended: a NUL in a string field, a header's value too.
		{`{"url": "https://hooks.example.com/", "headers": {"X-A": "a\u0000b"}}`, `{"headers":{"X-A":["Null characters are not allowed."]}}`},
		{`[]`, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
	}
	for _, c := range cases {
		r := f.do(t, "POST", f.list(), c.body)
		if r.code != 400 || !jsonEq(r.body, c.want) {
			t.Errorf("POST %s = %d %s, want 400 %s", c.body, r.code, r.body, c.want)
		}
		for op := range r.ops {
			if op != "DynamoDB.GetItem" && op != "DynamoDB.BatchGetItem" {
				t.Errorf("POST %s: a refused request made %s", c.body, op)
			}
		}
	}
	if r := f.do(t, "GET", f.list(), ""); r.body != "[]" {
		t.Errorf("after refusals the list is %s", r.body)
	}
	// Loopback, by address or by a name resolving to it, where the
	// deployment allows it; plain http only to those.
	local := newFixture(t, true)
	for _, u := range []string{"http://127.0.0.1:9/in", "https://loop.example.com/", "http://localhost:9/"} {
		if r := local.do(t, "POST", local.list(), `{"url": "`+u+`"}`); r.code != 201 {
			t.Errorf("with loopback allowed, %s = %d %s", u, r.code, r.body)
		}
	}
	if r := local.do(t, "POST", local.list(), `{"url": "http://loop.example.com/"}`); r.code != 400 {
		t.Errorf("plain http to a name = %d %s", r.code, r.body)
	}
}

func jsonEq(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

func TestAtMostTenAndChanges(t *testing.T) {
	f := newFixture(t, false)
	var ids []int64
	for i := range survey.MaxWebhooks {
		r := f.do(t, "POST", f.list(), fmt.Sprintf(`{"url": "https://hooks.example.com/%d"}`, i))
		if r.code != 201 {
			t.Fatalf("webhook %d = %d %s", i, r.code, r.body)
		}
		ids = append(ids, decode[view](t, r).ID)
	}
	if r := f.do(t, "POST", f.list(), `{"url": "https://hooks.example.com/11"}`); r.code != 400 ||
		r.body != `{"non_field_errors":["A survey holds at most 10 webhooks."]}` {
		t.Fatalf("the 11th = %d %s", r.code, r.body)
	}
	r := f.do(t, "PATCH", f.detail(ids[3]), `{"url": "https://other.example.com/x", "active": false, "headers": {"X-Team": "data"}}`)
	v := decode[view](t, r)
	if r.code != 200 || v.URL != "https://other.example.com/x" || v.Active || v.Headers["X-Team"] != "data" || v.Secret != nil {
		t.Fatalf("PATCH = %d %s", r.code, r.body)
	}
	if r := f.do(t, "PATCH", f.detail(ids[3]), `{"url": "https://internal.example.com/"}`); r.code != 400 {
		t.Errorf("PATCH to an internal host = %d %s", r.code, r.body)
	}
	if r := f.do(t, "PATCH", f.detail(ids[3]), `{}`); r.code != 200 || decode[view](t, r).URL != "https://other.example.com/x" {
		t.Errorf("an empty PATCH = %d %s", r.code, r.body)
	}
	if r := f.do(t, "DELETE", f.detail(ids[0]), ""); r.code != 204 {
		t.Fatalf("DELETE = %d %s", r.code, r.body)
	}
	for _, c := range []struct{ method, path string }{{"GET", f.detail(ids[0])}, {"PATCH", f.detail(ids[0])}, {"DELETE", f.detail(ids[0])},
		{"GET", f.detail("x")}, {"GET", f.detail(0)}, {"GET", fmt.Sprintf("/api/surveys/%d/webhooks/%d/", f.sid+1, ids[1])}} {
		if r := f.do(t, c.method, c.path, `{}`); r.code != 404 || r.body != notFound {
			t.Errorf("%s %s = %d %s", c.method, c.path, r.code, r.body)
		}
	}
	if r := f.do(t, "POST", f.list(), `{"url": "https://hooks.example.com/again"}`); r.code != 201 {
		t.Errorf("after a delete, a new one = %d %s", r.code, r.body)
	}
	if err := f.st.TrashSurvey(context.Background(), f.aid, f.sid); err != nil {
		t.Fatal(err)
	}
	if r := f.do(t, "POST", f.list(), `{"url": "https://hooks.example.com/"}`); r.code != 409 {
		t.Errorf("create in a trashed survey = %d %s", r.code, r.body)
	}
	if r := f.do(t, "GET", f.list(), ""); r.code != 200 {
		t.Errorf("list of a trashed survey = %d", r.code)
	}
}

func TestNotificationsShape(t *testing.T) {
	f := newFixture(t, false)
	nlist := fmt.Sprintf("/api/v2/surveys/%d/notifications/", f.sid)
	r := f.do(t, "POST", nlist, `{"recipient_type": 5, "sending_method": 3, "webhook_endpoint": "https://hooks.example.com/n8n",
		"webhook_headers": {"X-N8N": "1"}, "webhook_method": "POST", "enabled": true}`)
	if r.code != 201 {
		t.Fatalf("create = %d %s", r.code, r.body)
	}
	var n struct {
		ID              int64             `json:"id"`
		RecipientType   int               `json:"recipient_type"`
		SendingMethod   int               `json:"sending_method"`
		WebhookEndpoint string            `json:"webhook_endpoint"`
		WebhookHeaders  map[string]string `json:"webhook_headers"`
		WebhookMethod   string            `json:"webhook_method"`
		Enabled         bool              `json:"enabled"`
		Secret          string            `json:"secret"`
	}
	_ = json.Unmarshal([]byte(r.body), &n)
	if n.RecipientType != 5 || n.SendingMethod != 3 || n.WebhookMethod != "POST" || !n.Enabled || n.WebhookHeaders["X-N8N"] != "1" || !strings.HasPrefix(n.Secret, "whsec_") {
		t.Fatalf("created %s", r.body)
	}
	// The same webhook in the other shape.
	if v := decode[view](t, f.do(t, "GET", f.detail(n.ID), "")); v.URL != "https://hooks.example.com/n8n" || v.Headers["X-N8N"] != "1" {
		t.Errorf("seen as a webhook: %+v", v)
	}
	ndetail := fmt.Sprintf("%s%d/", nlist, n.ID)
	if r := f.do(t, "PATCH", ndetail, `{"enabled": false}`); r.code != 200 || !strings.Contains(r.body, `"enabled":false`) {
		t.Errorf("PATCH = %d %s", r.code, r.body)
	}
	for body, want := range map[string]string{
		`{"recipient_type": 4, "webhook_endpoint": "https://hooks.example.com/"}`:     `{"recipient_type":["\"4\" is not a valid choice."]}`,
		`{"webhook_method": "GET", "webhook_endpoint": "https://hooks.example.com/"}`: `{"webhook_method":["\"GET\" is not a valid choice; deliveries are POST requests."]}`,
		`{"webhook_endpoint": "https://10.0.0.1/"}`:                                   `{"webhook_endpoint":["` + webhook.MsgInternal + `"]}`,
		`{}`: `{"webhook_endpoint":["This field is required."]}`,
	} {
		if r := f.do(t, "POST", nlist, body); r.code != 400 || !jsonEq(r.body, want) {
			t.Errorf("POST %s = %d %s, want %s", body, r.code, r.body, want)
		}
	}
	if r := f.do(t, "GET", nlist, ""); r.code != 200 || strings.Count(r.body, `"recipient_type":5`) != 1 {
		t.Errorf("list = %d %s", r.code, r.body)
	}
	if r := f.do(t, "DELETE", ndetail, ""); r.code != 204 {
		t.Errorf("DELETE = %d %s", r.code, r.body)
	}
}

func TestDeliveryLogAndRetry(t *testing.T) {
	f := newFixture(t, false)
	wh := decode[view](t, f.do(t, "POST", f.list(), `{"url": "https://hooks.example.com/in"}`))
	ctx := context.Background()
	base := time.Now().UTC().Truncate(time.Microsecond).Add(-time.Hour)
	var last survey.Delivery
	for i := range 3 {
		last = survey.Delivery{WebhookID: wh.ID, SurveyID: f.sid, ResponseID: int64(500 + i), Event: survey.EventResponseSubmitted,
			Created: base.Add(time.Duration(i) * time.Minute), Status: survey.DeliveryFailed, Attempts: 10, LastStatusCode: 500,
			LastAttempt: base.Add(time.Hour)}
		if _, _, err := f.st.CreateDelivery(ctx, last, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	path := f.detail(wh.ID) + "deliveries/"
	r := f.do(t, "GET", path+"?page_size=2", "")
	var page struct {
		Next    *string               `json:"next"`
		Results []survey.DeliveryView `json:"results"`
	}
	_ = json.Unmarshal([]byte(r.body), &page)
	if r.code != 200 || len(page.Results) != 2 || page.Results[0].ResponseID == nil || *page.Results[0].ResponseID != 502 || page.Next == nil || r.dynamo != 2 {
		t.Fatalf("first page = %d %s (%d calls)", r.code, r.body, r.dynamo)
	}
	if page.Results[0].Status != "failed" || page.Results[0].Attempts != 10 || *page.Results[0].LastStatusCode != 500 || page.Results[0].NextAttemptAt != nil {
		t.Errorf("a delivery reads %+v", page.Results[0])
	}
	next := strings.TrimPrefix(*page.Next, "http://example.com")
	_ = json.Unmarshal([]byte(f.do(t, "GET", next, "").body), &page)
	if len(page.Results) != 1 || page.Results[0].ResponseID == nil || *page.Results[0].ResponseID != 500 || page.Next != nil {
		t.Fatalf("second page = %+v", page)
	}
	for _, q := range []string{"?cursor=zz", "?page_size=0", "?page_size=x"} {
		if r := f.do(t, "GET", path+q, ""); r.code != 400 {
			t.Errorf("GET %s = %d %s", q, r.code, r.body)
		}
	}
	retry := path + last.ID() + "/retry/"
	r = f.do(t, "POST", retry, "")
	if r.code != 202 || !strings.Contains(r.body, `"status":"pending"`) {
		t.Fatalf("retry = %d %s", r.code, r.body)
	}
	if len(f.queue.jobs) != 1 || f.queue.jobs[0] != (webhook.Job{SurveyID: f.sid, WebhookID: wh.ID, ResponseID: 502, Delivery: last.ID(), Attempt: 10}) {
		t.Fatalf("queued %+v", f.queue.jobs)
	}
	if d, err := f.st.Delivery(ctx, wh.ID, last.ID()); err != nil || d.Status != survey.DeliveryPending {
		t.Fatalf("after the retry the delivery is %+v %v", d, err)
	}
	for _, p := range []string{path + "1-1/retry/", path + "nope/retry/", f.detail(wh.ID+1) + "deliveries/"} {
		if r := f.do(t, "POST", p, ""); r.code != 404 && r.code != 405 {
			t.Errorf("%s = %d %s", p, r.code, r.body)
		}
	}
	f.do(t, "PATCH", f.detail(wh.ID), `{"active": false}`)
	if r := f.do(t, "POST", retry, ""); r.code != 409 {
		t.Errorf("retry to an inactive webhook = %d %s", r.code, r.body)
	}
}
