package account_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/miekg/dns"

	"surveyservice/functions/account"
	"surveyservice/functions/surveys"
	"surveyservice/internal/conflict"
	"surveyservice/internal/dnstest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

const domainsPath = "/api/account/domains/"

// freshDomain is a domain no other test (nor an earlier run on the same
// table) claims.
func freshDomain(prefix string) string {
	return fmt.Sprintf("%s-%d-%d.example.org", prefix, time.Now().UnixNano()%1e9, rand.IntN(1e6))
}

// domainsEnv is the account routes configured as make run configures them,
// reading DNS from srv.
func domainsEnv(srv *dnstest.Server) map[string]string {
	return map[string]string{"PUBLIC_SURVEY_URL": "https://survey.example", "API_BASE_URL": "https://api.survey.example",
		"PUBLIC_SURVEY_DOMAIN": "survey.example", "DOMAINS_TARGET_SUFFIX": "domains.survey.example", "DNS_RESOLVER": srv.Addr}
}

func domainsHandler(st *store.Store, srv *dnstest.Server) http.Handler {
	env := domainsEnv(srv)
	d := account.DomainsFromEnv(func(k string) string { return env[k] })
	return testenv.Conform(account.New(account.Deps{Auth: api.NewAuthenticator(st), Store: st, Domains: d}))
}

func postDomain(h http.Handler, key, body string) testenv.Reply {
	return testenv.Serve(h, testenv.NewRequest("POST", domainsPath, key, "application/json", testenv.Body(body)))
}

func verifyDomain(h http.Handler, key string, id int64) testenv.Reply {
	return testenv.Serve(h, testenv.NewRequest("POST", fmt.Sprintf("%s%d/verify/", domainsPath, id), key, "application/json", nil))
}

func decodeDomain(t *testing.T, r testenv.Reply) survey.Domain {
	t.Helper()
	var d survey.Domain
	if err := json.Unmarshal(r.Body, &d); err != nil {
		t.Fatalf("%d %s: %v", r.Code, r.Body, err)
	}
	return d
}

const invalidDomainBody = `{"domain":["Enter a valid domain name: a host name of at least two labels, not an IP address."]}`

// TestDomainValidation: the body is checked before the plan; a domain is a
// host name of two labels or more, lower-cased, a Unicode one stored by its
// punycode; IPs, ports, paths, wildcards and the service's own names (and
// every name under them) are refused; the plan is Enterprise; an account
// holds at most 5 domains (contract section 23).
func TestDomainValidation(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	srv := dnstest.Start(t)
	h := domainsHandler(st, srv)
	_, pro := testenv.NewAccount(t, survey.PlanPro)
	_, ent := testenv.NewAccount(t, survey.PlanEnterprise)
	own := `{"domain":["This domain belongs to the service."]}`
	caps := freshDomain("CAPS")
	uni := fmt.Sprintf("bücher-%d.example.org", time.Now().UnixNano()%1e9)
	tests := []struct {
		name, key, body string
		code            int
		want            string
	}{
		{"one label", ent, `{"domain": "localhost"}`, 400, invalidDomainBody},
		{"IPv4", ent, `{"domain": "192.0.2.1"}`, 400, invalidDomainBody},
		{"IPv6", ent, `{"domain": "[2001:db8::1]"}`, 400, invalidDomainBody},
		{"numeric top label", ent, `{"domain": "10.0.0.300"}`, 400, invalidDomainBody},
		{"port", ent, `{"domain": "forms.acme.com:8080"}`, 400, invalidDomainBody},
		{"path", ent, `{"domain": "forms.acme.com/s/"}`, 400, invalidDomainBody},
		{"scheme", ent, `{"domain": "https://forms.acme.com"}`, 400, invalidDomainBody},
		{"wildcard", ent, `{"domain": "*.acme.com"}`, 400, invalidDomainBody},
		{"empty label", ent, `{"domain": "forms..acme.com"}`, 400, invalidDomainBody},
		{"leading hyphen", ent, `{"domain": "-forms.acme.com"}`, 400, invalidDomainBody},
		{"label of 64", ent, `{"domain": "` + strings.Repeat("a", 64) + `.com"}`, 400, invalidDomainBody},
		{"the service's domain", ent, `{"domain": "survey.example"}`, 400, own},
		{"a subdomain of the service", ent, `{"domain": "acme.survey.example"}`, 400, own},
		{"deeper under the service", ent, `{"domain": "a.b.SURVEY.example."}`, 400, own},
		{"the API's host", ent, `{"domain": "api.survey.example"}`, 400, own},
		{"the CNAME targets' suffix", ent, `{"domain": "x.domains.survey.example"}`, 400, own},
		{"missing", ent, `{}`, 400, `{"domain":["This field is required."]}`},
		{"blank", ent, `{"domain": "  "}`, 400, `{"domain":["This field may not be blank."]}`},
		{"not a string", ent, `{"domain": 5}`, 400, `{"domain":["Not a valid string."]}`},
		{"invalid on the Pro plan is 400 first", pro, `{"domain": "x"}`, 400, invalidDomainBody},
		{"Pro plan", pro, `{"domain": "` + freshDomain("pro") + `"}`, 403, `{"detail":"Custom domains need the Enterprise plan."}`},
		{"capitals answered lower-cased", ent, `{"domain": "` + caps + `"}`, 201, strings.ToLower(caps)},
		{"Unicode stored by its punycode", ent, `{"domain": "` + uni + `"}`, 201, "xn--bcher-"},
		{"the same domain twice", ent, `{"domain": "` + caps + `"}`, 400, `{"domain":["Your account has claimed this domain already."]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := postDomain(h, tt.key, tt.body)
			if tt.code == 201 {
				d := decodeDomain(t, r)
				if r.Code != 201 || !strings.HasPrefix(d.Domain, tt.want) && d.Domain != tt.want {
					t.Fatalf("%d %s, want 201 with domain %s", r.Code, r.Body, tt.want)
				}
				return
			}
			wantReply(t, tt.name, r, tt.code, tt.want)
		})
	}
	// Two claims made above; three more fill the account, the sixth is refused.
	for i := 0; i < 3; i++ {
		wantReply(t, "claim", postDomain(h, ent, `{"domain": "`+freshDomain("fill")+`"}`), 201, "")
	}
	wantReply(t, "the 6th claim", postDomain(h, ent, `{"domain": "`+freshDomain("sixth")+`"}`), 400,
		`{"non_field_errors":["An account holds at most 5 domains."]}`)
	r := testenv.Serve(h, testenv.NewRequest("GET", domainsPath, ent, "", nil))
	var list []survey.Domain
	if err := json.Unmarshal(r.Body, &list); err != nil || r.Code != 200 || len(list) != 5 {
		t.Fatalf("list: %d %s", r.Code, r.Body)
	}
	// Removing one makes room again.
	wantReply(t, "delete", testenv.Serve(h, testenv.NewRequest("DELETE", fmt.Sprintf("%s%d/", domainsPath, list[0].ID), ent, "", nil)), 204, "")
	wantReply(t, "a claim after a delete", postDomain(h, ent, `{"domain": "`+freshDomain("again")+`"}`), 201, "")
	if r := testenv.Serve(h, testenv.NewRequest("POST", domainsPath, ent, "text/plain", testenv.Body("x.com"))); r.Code != 415 {
		t.Errorf("text/plain body: %d %s", r.Code, r.Body)
	}
}

// TestDomainClaimShape: a claim answers 201 with the contract's fields: a
// pending status, the TXT record's name and a random value (32+ URL-safe
// characters, new per claim), the account's cname_target (16+ random
// lower-case letters and digits, the same for all its claims, another
// account's different) and checked_at null; GET lists and reads it, DELETE
// removes it, another account's id is 404.
func TestDomainClaimShape(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	srv := dnstest.Start(t)
	h := domainsHandler(st, srv)
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	_, other := testenv.NewAccount(t, survey.PlanEnterprise)
	wantReply(t, "list before a claim", testenv.Serve(h, testenv.NewRequest("GET", domainsPath, key, "", nil)), 200, "[]")
	name := freshDomain("shape")
	r := postDomain(h, key, `{"domain": "`+name+`"}`)
	wantReply(t, "claim", r, 201, "")
	d := decodeDomain(t, r)
	var raw map[string]any
	_ = json.Unmarshal(r.Body, &raw)
	if len(raw) != 6 || raw["checked_at"] != nil || d.Status != "pending" || d.Domain != name || d.ID <= 0 {
		t.Fatalf("claim answered %s", r.Body)
	}
	if d.Verification.Type != "TXT" || d.Verification.Name != "_survey-verification."+name || len(d.Verification.Value) < 32 ||
		strings.Trim(d.Verification.Value, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		t.Fatalf("verification %+v", d.Verification)
	}
	label, ok := strings.CutSuffix(d.CNAMETarget, ".domains.survey.example")
	if !ok || len(label) < 16 || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		t.Fatalf("cname_target %q", d.CNAMETarget)
	}
	d2 := decodeDomain(t, postDomain(h, key, `{"domain": "`+freshDomain("shape2")+`"}`))
	d3 := decodeDomain(t, postDomain(h, other, `{"domain": "`+name+`"}`)) // pending claims of one domain by several accounts
	if d2.CNAMETarget != d.CNAMETarget || d3.CNAMETarget == d.CNAMETarget || d2.Verification.Value == d.Verification.Value ||
		d3.Verification.Value == d.Verification.Value {
		t.Fatalf("targets %s %s %s, values %s %s %s", d.CNAMETarget, d2.CNAMETarget, d3.CNAMETarget,
			d.Verification.Value, d2.Verification.Value, d3.Verification.Value)
	}
	one := fmt.Sprintf("%s%d/", domainsPath, d.ID)
	wantReply(t, "GET one", testenv.Serve(h, testenv.NewRequest("GET", one, key, "", nil)), 200, strings.TrimSpace(string(r.Body)))
	wantReply(t, "another account's", testenv.Serve(h, testenv.NewRequest("GET", one, other, "", nil)), 404, `{"detail":"Not found."}`)
	wantReply(t, "another account's verify", verifyDomain(h, other, d.ID), 404, `{"detail":"Not found."}`)
	wantReply(t, "another account's delete", testenv.Serve(h, testenv.NewRequest("DELETE", one, other, "", nil)), 404, `{"detail":"Not found."}`)
	wantReply(t, "a leading zero", testenv.Serve(h, testenv.NewRequest("GET", fmt.Sprintf("%s0%d/", domainsPath, d.ID), key, "", nil)), 404, "")
	wantReply(t, "delete", testenv.Serve(h, testenv.NewRequest("DELETE", one, key, "", nil)), 204, "")
	wantReply(t, "GET after delete", testenv.Serve(h, testenv.NewRequest("GET", one, key, "", nil)), 404, `{"detail":"Not found."}`)
}

// TestDomainVerify walks a claim through the owner's DNS changes, on a DNS
// server of the test's own (DNS_RESOLVER): every verify sets checked_at;
// the TXT record is named first when both fail; a CNAME to another target
// (another account's) fails; both right make the domain active, and then
// it is the account's alone: another account's pending claim answers "in
// use" on its next verify and a new claim at once (contract section 23).
func TestDomainVerify(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	srv := dnstest.Start(t)
	h := domainsHandler(st, srv)
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	_, other := testenv.NewAccount(t, survey.PlanEnterprise)
	name := freshDomain("verify")
	d := decodeDomain(t, postDomain(h, key, `{"domain": "`+name+`"}`))
	theirs := decodeDomain(t, postDomain(h, other, `{"domain": "`+strings.ToUpper(name)+`"}`))
	txtName := "_survey-verification." + name
	txtFails := `{"detail":"The TXT record _survey-verification.` + name + ` does not hold this claim's value."}`
	cnameFails := `{"detail":"The CNAME record of ` + name + ` does not point at ` + d.CNAMETarget + `."}`
	tests := []struct {
		name  string
		setup func()
		code  int
		want  string
	}{
		{"no records", func() {}, 400, txtFails},
		{"TXT with another value", func() { srv.SetTXT(txtName, "not-the-value") }, 400, txtFails},
		{"TXT right, no CNAME", func() { srv.SetTXT(txtName, "v=other", d.Verification.Value) }, 400, cnameFails},
		{"CNAME to another account's target", func() { srv.SetCNAME(name, theirs.CNAMETarget) }, 400, cnameFails},
		{"CNAME right, TXT gone", func() { srv.SetCNAME(name, d.CNAMETarget); srv.Remove(txtName, dns.TypeTXT) }, 400, txtFails},
		{"a resolver that cannot answer", func() { srv.SetTXT(txtName, d.Verification.Value); srv.SetFail(true) }, 503, ""},
		{"both right", func() { srv.SetFail(false) }, 200, ""},
		{"verify again, still right", func() {}, 200, ""},
	}
	for _, tt := range tests {
		tt.setup()
		r := verifyDomain(h, key, d.ID)
		wantReply(t, tt.name, r, tt.code, tt.want)
		got := decodeDomain(t, testenv.Serve(h, testenv.NewRequest("GET", fmt.Sprintf("%s%d/", domainsPath, d.ID), key, "", nil)))
		wantStatus := "pending"
		if tt.code == 200 {
			wantStatus = "active"
		}
		if got.Status != wantStatus || got.CheckedAt == nil { // the first case's check set it; a 503 decided nothing
			t.Fatalf("%s: status %s checked_at %v, want %s", tt.name, got.Status, got.CheckedAt, wantStatus)
		}
		if got.CheckedAt != nil {
			if _, err := time.Parse("2006-01-02T15:04:05Z", *got.CheckedAt); err != nil {
				t.Fatalf("checked_at %q", *got.CheckedAt)
			}
		}
	}
	inUse := `{"domain":["This domain is in use."]}`
	wantReply(t, "the other account's pending claim, verified", verifyDomain(h, other, theirs.ID), 400, inUse)
	wantReply(t, "a new claim by the other account", postDomain(h, other, `{"domain": "`+name+`"}`), 400, inUse)
	_, third := testenv.NewAccount(t, survey.PlanEnterprise)
	wantReply(t, "a new claim by a third account", postDomain(h, third, `{"domain": "`+name+`"}`), 400, inUse)
	if aid, err := st.ResolveDomain(t.Context(), name); err != nil || aid == 0 {
		t.Fatalf("ResolveDomain = %d, %v", aid, err)
	}

	// Deleting the active domain frees it: the other account's claim (its
	// own TXT value) may verify once the records are its own.
	wantReply(t, "delete the active domain", testenv.Serve(h, testenv.NewRequest("DELETE", fmt.Sprintf("%s%d/", domainsPath, d.ID), key, "", nil)), 204, "")
	if aid, err := st.ResolveDomain(t.Context(), name); err != nil || aid != 0 {
		t.Fatalf("ResolveDomain after delete = %d, %v", aid, err)
	}
	wantReply(t, "the other account, with the first's records left behind", verifyDomain(h, other, theirs.ID), 400,
		`{"detail":"The TXT record _survey-verification.`+name+` does not hold this claim's value."}`)
	srv.SetTXT(txtName, theirs.Verification.Value)
	srv.SetCNAME(name, theirs.CNAMETarget)
	wantReply(t, "the other account, with its own records", verifyDomain(h, other, theirs.ID), 200, "")
}

// TestDomainRacingVerifies: 20 accounts' verifies of one domain land at
// once on the conflict model (DynamoDB cancels contending transactions):
// the domain's own item lets exactly one win, every other answers "in use",
// none 503 (contract sections 3 and 23). DNS can prove only one account's
// CNAME, so the race is run at the store's step that decides it.
func TestDomainRacingVerifies(t *testing.T) {
	t.Parallel()
	cfg, p := testenv.ConflictConfig(t, conflict.DefaultHold)
	st := store.New(cfg, testenv.Store(t).TableName())
	ctx := t.Context()
	name := freshDomain("race")
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example"}
	type claim struct {
		aid int64
		c   store.DomainClaim
	}
	claims := make([]claim, 20)
	for i := range claims {
		a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
		d, err := st.ClaimDomain(ctx, a.ID, name, dc)
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.ClaimForVerify(ctx, a.ID, d.ID, dc)
		if err != nil {
			t.Fatal(err)
		}
		claims[i] = claim{a.ID, c}
	}
	before := p.Conflicts()
	errs := make([]error, len(claims))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range claims {
		wg.Go(func() {
			<-start
			errs[i] = st.ActivateDomain(ctx, claims[i].aid, claims[i].c, time.Now())
		})
	}
	close(start)
	wg.Wait()
	wins, inUse := 0, 0
	var winner int64
	for i, err := range errs {
		switch {
		case err == nil:
			wins++
			winner = claims[i].aid
		case survey.ErrorCode(err) == survey.EINVALID && strings.Contains(err.Error(), survey.MsgDomainInUse):
			inUse++
		default:
			t.Errorf("a verify answered %v", err)
		}
	}
	t.Logf("20 verifies of one domain: %d won, %d in use (%d conflicts)", wins, inUse, p.Conflicts()-before)
	if wins != 1 || inUse != 19 {
		t.Fatalf("%d wins and %d in use, want 1 and 19", wins, inUse)
	}
	if aid, err := st.ResolveDomain(ctx, name); err != nil || aid != winner {
		t.Fatalf("the domain serves %d (%v), want the winner %d", aid, err, winner)
	}
}

// TestSurveysShowCustomURLs: a survey's detail lists its address on each
// active custom domain of its account at once, [] before the verify and
// after the domain's removal (contract section 23).
func TestSurveysShowCustomURLs(t *testing.T) {
	t.Parallel()
	o := testenv.NewOwner(t, survey.PlanEnterprise, "Custom")
	sv := testenv.NewSurvey(t, o.Store, o.Account.ID, o.Folder, "Shown")
	srv := dnstest.Start(t)
	ah := domainsHandler(o.Store, srv)
	sh := testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(o.Store), Store: o.Store, Now: time.Now}))
	detail := fmt.Sprintf("/api/v2/surveys/%d/", sv.ID)
	check := func(when, want string) {
		t.Helper()
		r := testenv.Serve(sh, testenv.NewRequest("GET", detail, o.Key, "", nil))
		if r.Code != 200 || !strings.Contains(string(r.Body), `"custom_urls":`+want) {
			t.Errorf("%s: %d %s, want custom_urls %s", when, r.Code, r.Body, want)
		}
	}
	check("before a claim", "[]")
	name := freshDomain("urls")
	d := decodeDomain(t, postDomain(ah, o.Key, `{"domain": "`+name+`"}`))
	check("pending", "[]")
	srv.SetTXT(d.Verification.Name, d.Verification.Value)
	srv.SetCNAME(name, d.CNAMETarget)
	wantReply(t, "verify", verifyDomain(ah, o.Key, d.ID), 200, "")
	check("active", `["https://`+name+`/s/`+sv.URLSlug+`/"]`)
	wantReply(t, "delete", testenv.Serve(ah, testenv.NewRequest("DELETE", fmt.Sprintf("%s%d/", domainsPath, d.ID), o.Key, "", nil)), 204, "")
	check("removed", "[]")
}

// pauseAt is an HTTP client of the store that holds the first DynamoDB
// request of target whose body holds every one of marks until release is
// closed (reached is closed when it arrives): a step of one request set
// between two of another's, as a slow network sets it.
type pauseAt struct {
	next             aws.HTTPClient
	target           string
	marks            []string
	once             sync.Once
	reached, release chan struct{}
}

func (p *pauseAt) Do(req *http.Request) (*http.Response, error) {
	if req.Header.Get("X-Amz-Target") == "DynamoDB_20120810."+p.target && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		match := true
		for _, m := range p.marks {
			match = match && bytes.Contains(body, []byte(m))
		}
		if match {
			p.once.Do(func() { close(p.reached); <-p.release })
		}
	}
	return p.next.Do(req)
}

// TestDomainDeletedWhileVerified: a claim deleted while its verify
// succeeds leaves nothing serving: the delete read the claim pending, the
// verify made it active (and the domain its account's) before the
// delete's write, and the delete then removes the domain's own item too.
// Before, the claim went and the domain stayed active with no claim to
// delete it by, no check able to suspend or release it, and every other
// account's verify answering "in use" (contract section 23: no domain
// can be taken over, nor held by a dangling record).
func TestDomainDeletedWhileVerified(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := t.Context()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example"}
	name := freshDomain("deleted")
	d, err := st.ClaimDomain(ctx, a.ID, name, dc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.ClaimForVerify(ctx, a.ID, d.ID, dc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testenv.Config(t)
	pause := &pauseAt{next: cfg.HTTPClient, target: "TransactWriteItems", marks: []string{`"Delete"`, fmt.Sprintf("#DOMAIN#%020d", d.ID)},
		reached: make(chan struct{}), release: make(chan struct{})}
	cfg.HTTPClient = pause
	slow := store.New(cfg, st.TableName())
	done := make(chan error, 1)
	go func() { done <- slow.DeleteDomain(ctx, a.ID, d.ID) }()
	select {
	case <-pause.reached:
	case err := <-done:
		t.Fatalf("the delete finished before its write was held: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the delete's write never came")
	}
	if err := st.ActivateDomain(ctx, a.ID, c, time.Now()); err != nil {
		t.Fatalf("the verify: %v", err)
	}
	close(pause.release)
	if err := <-done; err != nil {
		t.Fatalf("the delete: %v", err)
	}
	ds, err := st.AccountDomains(ctx, a.ID, dc)
	if err != nil || len(ds) != 0 {
		t.Fatalf("the account's domains after the delete: %v, %v", ds, err)
	}
	if aid, err := st.DomainOwnerOf(ctx, name); err != nil || aid != 0 {
		t.Fatalf("the domain is account %d's after its claim was deleted (%v): it serves with no claim to delete it by", aid, err)
	}
}

// longDomain is a fresh domain of n characters (labels of at most 63).
func longDomain(n int) string {
	d := freshDomain("long")
	for len(d) < n {
		d = strings.Repeat("a", min(63, n-len(d)-1)) + "." + d
	}
	return d
}

// TestDomainVerifyLongName: a domain long enough to claim (253 characters
// at most) but too long for its TXT record's name (the 21 characters of
// "_survey-verification." more than DNS's 253) has no TXT record to find:
// its verify answers that verdict, 400 naming the TXT record, never 503
// "the resolver did not answer" (the resolver refuses the question).
func TestDomainVerifyLongName(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	srv := dnstest.Start(t)
	h := domainsHandler(st, srv)
	_, key := testenv.NewAccount(t, survey.PlanEnterprise)
	for _, n := range []int{232, 233, 253} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			name := longDomain(n)
			r := postDomain(h, key, `{"domain": "`+name+`"}`)
			wantReply(t, "claim", r, 201, "")
			d := decodeDomain(t, r)
			if len(d.Domain) != n {
				t.Fatalf("domain of %d characters, want %d", len(d.Domain), n)
			}
			srv.SetCNAME(name, d.CNAMETarget)
			wantReply(t, "verify", verifyDomain(h, key, d.ID), 400,
				`{"detail":"The TXT record _survey-verification.`+name+` does not hold this claim's value."}`)
			wantReply(t, "delete", testenv.Serve(h, testenv.NewRequest("DELETE", fmt.Sprintf("%s%d/", domainsPath, d.ID), key, "", nil)), 204, "")
		})
	}
}
