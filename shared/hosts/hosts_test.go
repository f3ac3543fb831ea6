package hosts_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/hosts"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestServingByHost: a subdomain serves its account's surveys alone
// (another account's slug 404, as an unknown one); a renamed name answers
// 301 to the same path and query on the new name; a released one and an
// unknown host 404; the owner API answers on any host; the service's own
// host serves every survey (contract section 23). A warm host costs no
// read: the second page view on it makes no DynamoDB call for the host.
func TestServingByHost(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := t.Context()
	a := testenv.NewOwner(t, survey.PlanPro, "A")
	b := testenv.NewOwner(t, survey.PlanPro, "B")
	mine := testenv.NewSurvey(t, st, a.Account.ID, a.Folder, "mine")
	theirs := testenv.NewSurvey(t, st, b.Account.ID, b.Folder, "theirs")
	suffix := fmt.Sprint(time.Now().UnixNano() % 1e9)
	old, cur, gone := "old"+suffix, "cur"+suffix, "gone"+suffix
	for _, c := range []struct {
		aid  int64
		name string
	}{{a.Account.ID, old}, {a.Account.ID, cur}, {b.Account.ID, gone}} {
		if _, err := st.ClaimSubdomain(ctx, c.aid, c.name); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.ReleaseSubdomain(ctx, b.Account.ID); err != nil {
		t.Fatal(err)
	}
	// The inner handler stands for the serving routes: it finds the slug's
	// survey as every one of them does (store.SurveyIDBySlug).
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := st.SurveyIDBySlug(r.Context(), r.URL.Query().Get("slug")); err != nil {
			api.Error(w, r, err)
			return
		}
		w.WriteHeader(200)
	})
	cfg := hosts.ConfigFromEnv(env{"PUBLIC_SURVEY_URL": "https://survey.example", "API_BASE_URL": "https://api.survey.example",
		"PUBLIC_SURVEY_DOMAIN": "survey.example"}.get)
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) })
	h := hosts.New(cfg, st).Wrap(inner, hosts.Serving, notFound)
	tests := []struct {
		name, host, path string
		code             int
		location         string
	}{
		{"own host, any account's survey", "survey.example", "/s/x/?slug=" + theirs.URLSlug, 200, ""},
		{"API host", "api.survey.example:443", "/api/public/surveys/x/?slug=" + theirs.URLSlug, 200, ""},
		{"subdomain, its account's survey", cur + ".survey.example", "/s/x/?slug=" + mine.URLSlug, 200, ""},
		{"subdomain in capitals", "CUR" + suffix + ".Survey.Example", "/r/x/?slug=" + mine.URLSlug, 200, ""},
		{"subdomain, another account's survey", cur + ".survey.example", "/s/x/?slug=" + theirs.URLSlug, 404, ""},
		{"subdomain, an unknown slug", cur + ".survey.example", "/api/public/surveys/x/?slug=nosuchslug", 404, ""},
		{"renamed name", old + ".survey.example", "/s/x/?slug=" + mine.URLSlug + "&a=1", 301,
			"https://" + cur + ".survey.example/s/x/?slug=" + mine.URLSlug + "&a=1"},
		{"released name", gone + ".survey.example", "/s/x/?slug=" + theirs.URLSlug, 404, ""},
		{"unknown subdomain", "nobody" + suffix + ".survey.example", "/assets/x/", 404, ""},
		{"two labels under the domain", "a." + cur + ".survey.example", "/s/x/", 404, ""},
		{"a label longer than any name", strings.Repeat("a", 3000) + ".survey.example", "/s/x/", 404, ""},
		{"a label no name can be", "a_b.survey.example", "/api/public/surveys/x/", 404, ""},
		{"another host", "evil.example", "/s/x/?slug=" + mine.URLSlug, 404, ""},
		{"owner API on another host", "evil.example", "/api/v2/surveys/?slug=" + mine.URLSlug, 200, ""},
		{"oEmbed on a subdomain", gone + ".survey.example", "/api/oembed/?slug=" + mine.URLSlug, 200, ""},
	}
	for _, tt := range tests {
		req := httptest.NewRequest("GET", tt.path, nil)
		req.Host = tt.host
		r := testenv.Serve(h, req)
		if r.Code != tt.code || r.Header.Get("Location") != tt.location {
			t.Errorf("%s: %d Location %q, want %d %q", tt.name, r.Code, r.Header.Get("Location"), tt.code, tt.location)
		}
	}
	// Calls per page view: the first view on a host reads the name's item
	// (and the survey's account, once per container); the next none but
	// the page's own (here: none, the slug is cached too).
	fresh := hosts.New(cfg, st).Wrap(inner, hosts.Serving, notFound)
	first, second := 0, 0
	for i := range 2 {
		req := httptest.NewRequest("GET", "/s/x/?slug="+mine.URLSlug, nil)
		req.Host = cur + ".survey.example"
		r := testenv.Serve(fresh, req)
		if r.Code != 200 {
			t.Fatalf("view %d: %d", i, r.Code)
		}
		if i == 0 {
			first = r.Calls.DynamoDB()
		} else {
			second = r.Calls.DynamoDB()
		}
	}
	t.Logf("DynamoDB calls for the host: first view %d, next view %d", first, second)
	if first != 1 || second != 0 {
		t.Errorf("DynamoDB calls: first view %d (want 1: the name's item), next view %d (want 0)", first, second)
	}
}

// TestServingByCustomDomain: an active custom domain serves its account's
// surveys alone (another account's slug 404); a pending, a suspended, a
// deleted and an unknown domain serve nothing; the owner API answers on
// any of them (contract section 23).
func TestServingByCustomDomain(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := t.Context()
	a := testenv.NewOwner(t, survey.PlanEnterprise, "A")
	b := testenv.NewOwner(t, survey.PlanEnterprise, "B")
	mine := testenv.NewSurvey(t, st, a.Account.ID, a.Folder, "mine")
	theirs := testenv.NewSurvey(t, st, b.Account.ID, b.Folder, "theirs")
	suffix := fmt.Sprint(time.Now().UnixNano() % 1e9)
	dc := store.DomainsConfig{TargetSuffix: "domains.survey.example"}
	claim := func(aid int64, domain string, activate bool) store.DomainClaim {
		t.Helper()
		d, err := st.ClaimDomain(ctx, aid, domain, dc)
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.ClaimForVerify(ctx, aid, d.ID, dc)
		if err != nil {
			t.Fatal(err)
		}
		if activate {
			if err := st.ActivateDomain(ctx, aid, c, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	active, pending, suspended, deleted := "forms-"+suffix+".acme.example", "pending-"+suffix+".acme.example",
		"suspended-"+suffix+".acme.example", "deleted-"+suffix+".acme.example"
	claim(a.Account.ID, active, true)
	claim(a.Account.ID, pending, false)
	claim(b.Account.ID, suspended, true)
	gone := claim(b.Account.ID, deleted, true)
	if err := st.DeleteDomain(ctx, b.Account.ID, gone.Domain.ID); err != nil {
		t.Fatal(err)
	}
	page, next, err := st.CheckedDomainsPage(ctx, nil, 1000)
	for next != nil && err == nil {
		var more []store.DomainOwner
		more, next, err = st.CheckedDomainsPage(ctx, next, 1000)
		page = append(page, more...)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range page {
		if o.Domain == suspended {
			if ok, err := st.SetDomainStatus(ctx, o, survey.DomainSuspended, time.Now()); !ok || err != nil {
				t.Fatalf("suspend: %v %v", ok, err)
			}
		}
	}
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := st.SurveyIDBySlug(r.Context(), r.URL.Query().Get("slug")); err != nil {
			api.Error(w, r, err)
			return
		}
		w.WriteHeader(200)
	})
	cfg := hosts.ConfigFromEnv(env{"PUBLIC_SURVEY_URL": "https://survey.example", "API_BASE_URL": "https://api.survey.example",
		"PUBLIC_SURVEY_DOMAIN": "survey.example"}.get)
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) })
	h := hosts.New(cfg, st).Wrap(inner, hosts.Serving, notFound)
	tests := []struct {
		name, host, path string
		code             int
	}{
		{"active domain, its account's survey", active, "/s/x/?slug=" + mine.URLSlug, 200},
		{"active domain with a port, in capitals, with a final dot", strings.ToUpper(active) + ".:443", "/api/public/surveys/x/?slug=" + mine.URLSlug, 200},
		{"active domain, another account's survey", active, "/s/x/?slug=" + theirs.URLSlug, 404},
		{"pending domain", pending, "/s/x/?slug=" + mine.URLSlug, 404},
		{"suspended domain", suspended, "/r/x/?slug=" + theirs.URLSlug, 404},
		{"deleted domain", deleted, "/s/x/?slug=" + theirs.URLSlug, 404},
		{"an IP address", "192.0.2.7", "/s/x/?slug=" + mine.URLSlug, 404},
		{"owner API on a suspended domain", suspended, "/api/v2/surveys/?slug=" + mine.URLSlug, 200},
		// Through CloudFront: the API's own host, the viewer's in X-Survey-Host.
		{"via CloudFront, active domain, its account's survey", "api.survey.example|" + active, "/s/x/?slug=" + mine.URLSlug, 200},
		{"via CloudFront, active domain, another account's survey", "api.survey.example|" + active, "/s/x/?slug=" + theirs.URLSlug, 404},
		{"via CloudFront, suspended domain", "api.survey.example|" + suspended, "/s/x/?slug=" + theirs.URLSlug, 404},
		{"the header on a custom domain changes nothing", active + "|" + suspended, "/s/x/?slug=" + mine.URLSlug, 200},
	}
	for _, tt := range tests {
		req := httptest.NewRequest("GET", tt.path, nil)
		req.Host = tt.host
		if host, viewer, ok := strings.Cut(tt.host, "|"); ok {
			req.Host = host
			req.Header.Set(hosts.ViewerHostHeader, viewer)
		}
		if r := testenv.Serve(h, req); r.Code != tt.code {
			t.Errorf("%s: %d, want %d", tt.name, r.Code, tt.code)
		}
	}
}

type env map[string]string

func (e env) get(k string) string { return e[k] }

// TestLoopbackIsOwn: a service on this machine (make run, PUBLIC_SURVEY_URL
// http://127.0.0.1:3000) serves its pages at localhost too, where a person
// types it; a deployment's own hosts are its addresses only.
func TestLoopbackIsOwn(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	local := hosts.ConfigFromEnv(env(map[string]string{"PUBLIC_SURVEY_URL": "http://127.0.0.1:3000", "API_BASE_URL": "http://127.0.0.1:3000"}))
	if !slices.Contains(local.Own, "localhost") || !slices.Contains(local.Own, "127.0.0.1") {
		t.Errorf("make run's own hosts %v, want localhost and 127.0.0.1", local.Own)
	}
	deployed := hosts.ConfigFromEnv(env(map[string]string{"PUBLIC_SURVEY_URL": "https://survey.example", "API_BASE_URL": "https://api.survey.example"}))
	if slices.Contains(deployed.Own, "localhost") || len(deployed.Own) != 2 {
		t.Errorf("a deployment's own hosts %v, want its two addresses only", deployed.Own)
	}
}

// TestSubdomainAddressKeepsThePort: make run serves its subdomains on
// its own port (PUBLIC_SURVEY_URL http://127.0.0.1:3000), so the links it
// writes for an account's subdomain carry it (before, they named port 80,
// where nothing answers); a deployment's name none.
func TestSubdomainAddressKeepsThePort(t *testing.T) {
	for _, tc := range []struct{ public, domain, want string }{
		{"http://127.0.0.1:3000", "localhost", "http://acme.localhost:3000"},
		{"http://127.0.0.1:3000/", "localhost.", "http://acme.localhost:3000"},
		{"https://survey.example", "survey.example", "https://acme.survey.example"},
		{"https://survey.example:443", "survey.example", "https://acme.survey.example:443"},
		{"https://survey.example", "", ""},
	} {
		cfg := hosts.ConfigFromEnv(env{"PUBLIC_SURVEY_URL": tc.public, "PUBLIC_SURVEY_DOMAIN": tc.domain}.get)
		if got := cfg.SubdomainURL("acme"); got != tc.want {
			t.Errorf("PUBLIC_SURVEY_URL %s, PUBLIC_SURVEY_DOMAIN %q: %q, want %q", tc.public, tc.domain, got, tc.want)
		}
	}
}

// TestViewerAddressThroughTheDistribution: through the custom domains'
// CloudFront distribution API Gateway's source address is the edge's,
// shared by everyone behind it, so each per-client limit (10 code sends
// an hour, failed code checks, the pages' rates) and a response's
// address were the edge's (hostile10). A request that carries the
// distribution's secret (its origin custom header) is the viewer's
// address, as its viewer-request function wrote it; a request without the
// secret, or with another, keeps its own address whatever it says, and
// the secret is never passed on.
func TestViewerAddressThroughTheDistribution(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	const secret = "s3cret-of-the-distribution"
	for _, tc := range []struct {
		name, configured, sent, viewer, want string
	}{
		{"the distribution", secret, secret, "203.0.113.7", "203.0.113.7"},
		{"the distribution, IPv6", secret, secret, "2001:db8::42", "2001:db8::42"},
		{"the distribution, IPv4 in IPv6", secret, secret, "::ffff:203.0.113.9", "203.0.113.9"},
		{"another secret", secret, "guess", "203.0.113.7", "198.51.100.1"},
		{"no secret sent", secret, "", "203.0.113.7", "198.51.100.1"},
		{"no distribution configured", "", secret, "203.0.113.7", "198.51.100.1"},
		{"not an address", secret, secret, "203.0.113.7, 10.0.0.1", "198.51.100.1"},
		{"no viewer", secret, secret, "", "198.51.100.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, leaked string
			inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, leaked = api.ClientIP(r), r.Header.Get(hosts.OriginSecretHeader)
				w.WriteHeader(200)
			})
			cfg := hosts.ConfigFromEnv(env{"API_BASE_URL": "https://api.survey.example", "DOMAINS_ORIGIN_SECRET": tc.configured}.get)
			h := hosts.New(cfg, st).Wrap(inner, hosts.Serving, http.NotFoundHandler())
			for _, path := range []string{"/s/some-survey/", "/api/public/surveys/some-survey/"} {
				req := httptest.NewRequest("GET", "https://api.survey.example"+path, nil)
				req.RemoteAddr = "198.51.100.1:4711"
				if tc.sent != "" {
					req.Header.Set(hosts.OriginSecretHeader, tc.sent)
				}
				if tc.viewer != "" {
					req.Header.Set(hosts.ViewerAddressHeader, tc.viewer)
				}
				h.ServeHTTP(httptest.NewRecorder(), req)
				if got != tc.want {
					t.Errorf("%s: the client's address %q, want %q", path, got, tc.want)
				}
				if leaked != "" {
					t.Errorf("%s: the secret reached the handler", path)
				}
			}
		})
	}
}
