// Package hosts lets a request's Host choose whose surveys it may serve
// (contract section 23): the service's own hosts serve every survey,
// `<subdomain>.<PUBLIC_SURVEY_DOMAIN>` its account's alone, and any other
// host nothing (404) on the serving routes. It never writes a link: links
// are built from configuration and records (style.md, "The host chooses
// the tenant, configuration writes the links").
package hosts

import (
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// CacheTTL is how long a container trusts what it learned about a host: a
// subdomain's change is seen by the pages within a minute (section 23),
// and a page view of a known host costs no read.
const CacheTTL = 30 * time.Second

// cacheMax bounds each of the caches (of hosts that serve something, and
// of those that serve nothing); when one is full it starts over alone, so
// that requests for made-up hosts (any name under PUBLIC_SURVEY_DOMAIN)
// never push out the hosts that serve.
const cacheMax = 10000

// Store resolves subdomain names and custom domains.
type Store interface {
	ResolveSubdomain(ctx context.Context, name string) (store.SubdomainHost, error)
	// ResolveDomain is the account an active custom domain serves, 0 for
	// any other host (pending, suspended, released, unknown).
	ResolveDomain(ctx context.Context, domain string) (int64, error)
}

// Config is the deployment's addresses.
type Config struct {
	// Own are the service's own host names (of API_BASE_URL and
	// PUBLIC_SURVEY_URL), without ports.
	Own []string
	// Domain is PUBLIC_SURVEY_DOMAIN: "" has no subdomains.
	Domain string
	// Scheme is PUBLIC_SURVEY_URL's, for the 301 of a renamed name.
	Scheme string
	// Port is PUBLIC_SURVEY_URL's when it names one (make run's
	// http://127.0.0.1:3000): the subdomains are served on it too, so
	// their addresses carry it. "" on AWS.
	Port string
	// OriginSecret is DOMAINS_ORIGIN_SECRET: the value the custom domains'
	// CloudFront distribution sends in OriginSecretHeader to the API, by
	// which a request proves it came through it ("": no distribution).
	OriginSecret string
}

// ConfigFromEnv reads API_BASE_URL, PUBLIC_SURVEY_URL, PUBLIC_SURVEY_DOMAIN
// and DOMAINS_ORIGIN_SECRET.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{Domain: strings.ToLower(strings.TrimSuffix(getenv("PUBLIC_SURVEY_DOMAIN"), ".")), Scheme: "https",
		OriginSecret: getenv("DOMAINS_ORIGIN_SECRET")}
	for i, v := range []string{getenv("PUBLIC_SURVEY_URL"), getenv("API_BASE_URL")} {
		u, err := url.Parse(v)
		if err != nil || u.Host == "" {
			continue
		}
		c.Own = append(c.Own, strings.ToLower(u.Hostname()))
		if i == 0 && u.Scheme != "" {
			c.Scheme, c.Port = u.Scheme, u.Port()
		}
	}
	// A service on this machine (make run) is its own at every loopback
	// name: a person types localhost where the banner says 127.0.0.1.
	for _, own := range c.Own {
		if ip := net.ParseIP(own); own == "localhost" || ip != nil && ip.IsLoopback() {
			c.Own = append(c.Own, "localhost", "127.0.0.1", "::1")
			break
		}
	}
	return c
}

// Resolver decides what a host serves, from a per-container cache.
type Resolver struct {
	cfg   Config
	st    Store
	Now   func() time.Time
	mu    sync.Mutex
	cache map[string]entry // hosts that serve (an account, or a redirect)
	// misses are the hosts that serve nothing.
	misses map[string]entry
}

type entry struct {
	host    store.SubdomainHost
	expires time.Time
}

// New returns a Resolver.
func New(cfg Config, st Store) *Resolver {
	return &Resolver{cfg: cfg, st: st, Now: time.Now, cache: map[string]entry{}, misses: map[string]entry{}}
}

// SubdomainURL is the address of a subdomain name (the scheme of
// PUBLIC_SURVEY_URL, and its port when it names one), or "" without
// PUBLIC_SURVEY_DOMAIN.
func (c Config) SubdomainURL(name string) string {
	if c.Domain == "" || name == "" {
		return ""
	}
	return c.Scheme + "://" + name + "." + c.Domain + c.portSuffix()
}

// portSuffix is ":" and Port, or "" without one.
func (c Config) portSuffix() string {
	if c.Port == "" {
		return ""
	}
	return ":" + c.Port
}

// SurveyBase is where the links the service writes for an account's
// surveys point (contract section 23): the account's subdomain address when
// it has an active one and subdomains are configured, else publicURL
// (PUBLIC_SURVEY_URL). It is the one place a link's base is chosen, from
// configuration and the account's record, never from a request's Host.
func (c Config) SurveyBase(publicURL string, sub *survey.Subdomain) string {
	if sub != nil && sub.IsActive {
		if u := c.SubdomainURL(sub.Subdomain); u != "" {
			return u
		}
	}
	return strings.TrimRight(publicURL, "/")
}

// resolve is what a subdomain name serves (custom false) or a custom
// domain (custom true: an active one as an active name of its account).
func (r *Resolver) resolve(ctx context.Context, name string, custom bool) (store.SubdomainHost, error) {
	key := name
	if custom {
		key = "." + name // no subdomain name starts with a dot
	}
	now := r.Now()
	r.mu.Lock()
	e, ok := r.cache[key]
	if !ok {
		e, ok = r.misses[key]
	}
	r.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.host, nil
	}
	var h store.SubdomainHost
	var err error
	if custom {
		var aid int64
		aid, err = r.st.ResolveDomain(ctx, name)
		h = store.SubdomainHost{AccountID: aid, Active: aid != 0}
	} else {
		h, err = r.st.ResolveSubdomain(ctx, name)
	}
	if err != nil {
		return store.SubdomainHost{}, err
	}
	r.mu.Lock()
	c := &r.cache
	if h.AccountID == 0 {
		c = &r.misses
	}
	delete(r.cache, key) // a host may have moved from one to the other
	delete(r.misses, key)
	if len(*c) >= cacheMax {
		*c = map[string]entry{}
	}
	(*c)[key] = entry{host: h, expires: now.Add(CacheTTL)}
	r.mu.Unlock()
	return h, nil
}

// Wrap serves h on the routes serving reports (paths for which serving is
// true): on an own host as it is, on an active subdomain or active custom
// domain scoped to its account (store.WithHostAccount), on a renamed one (within its hold) a 301
// to the same path and query on the account's name, and on any other host
// notFound. Other routes (the owner API, oEmbed) answer on any host.
func (r *Resolver) Wrap(h http.Handler, serving func(path string) bool, notFound http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		req = r.cfg.viewer(req)
		if !serving(req.URL.Path) {
			h.ServeHTTP(w, req)
			return
		}
		host := hostOf(req.Host)
		if r.cfg.own(host) && req.Header.Get(ViewerHostHeader) != "" {
			// Through the custom domains' CloudFront distribution, which
			// reaches the API at its own host: the viewer's host is in
			// the header its viewer-request function sets. It only
			// narrows what a request may serve, so a client that sends
			// it itself gains nothing.
			host = hostOf(req.Header.Get(ViewerHostHeader))
		}
		if r.cfg.own(host) {
			h.ServeHTTP(w, req)
			return
		}
		name, ok := r.subdomainOf(host)
		custom := false
		if !ok {
			// Any other host may be an active custom domain: looked up by
			// the name DNS uses (a host not a domain name serves nothing).
			if name, ok = survey.NormalizeDomain(host); !ok || r.cfg.underOwn(name) {
				notFound.ServeHTTP(w, req)
				return
			}
			custom = true
		}
		sh, err := r.resolve(req.Context(), name, custom)
		switch {
		case err != nil:
			api.Error(w, req, err)
		case sh.Active:
			h.ServeHTTP(w, req.WithContext(store.WithHostAccount(req.Context(), sh.AccountID)))
		case sh.Redirect != "":
			http.Redirect(w, req, r.cfg.SubdomainURL(sh.Redirect)+req.URL.RequestURI(), http.StatusMovedPermanently)
		default:
			notFound.ServeHTTP(w, req)
		}
	})
}

// ViewerHostHeader carries the viewer's Host through the custom domains'
// CloudFront distribution (template.yaml, DomainsViewerHost).
const ViewerHostHeader = "X-Survey-Host"

// ViewerAddressHeader carries the viewer's address through the custom
// domains' distribution (its viewer-request function writes
// event.viewer.ip over anything the viewer sent), and OriginSecretHeader
// the distribution's secret (an origin custom header, which CloudFront
// writes over the viewer's own).
const (
	ViewerAddressHeader = "X-Survey-Viewer"
	OriginSecretHeader  = "X-Survey-Origin"
)

// viewer is req as its viewer sent it: through the custom domains'
// distribution, API Gateway's source address is a CloudFront edge's,
// which every viewer behind it shares, so every per-client limit (code
// sends, failed code checks, the pages' and responders' rates) and a
// response's recorded address would be the edge's. A request whose
// OriginSecretHeader holds the distribution's secret takes the viewer's
// address from ViewerAddressHeader; any other keeps its own (a client
// that calls the API itself cannot choose its address). The secret never
// goes further.
func (c Config) viewer(req *http.Request) *http.Request {
	secret := req.Header.Get(OriginSecretHeader)
	if secret == "" {
		return req
	}
	req = req.Clone(req.Context())
	req.Header.Del(OriginSecretHeader)
	if c.OriginSecret == "" || subtle.ConstantTimeCompare([]byte(secret), []byte(c.OriginSecret)) != 1 {
		return req
	}
	if ip, err := netip.ParseAddr(strings.TrimSpace(req.Header.Get(ViewerAddressHeader))); err == nil {
		req.RemoteAddr = netip.AddrPortFrom(ip.Unmap(), 0).String()
	}
	return req
}

// hostOf is a Host header's name: lower-cased, without port or final dot.
func hostOf(h string) string {
	host := strings.ToLower(h)
	if hn, _, err := net.SplitHostPort(host); err == nil {
		host = hn
	}
	return strings.TrimSuffix(host, ".")
}

// own reports whether host is one of the service's own.
func (c Config) own(host string) bool {
	for _, own := range c.Own {
		if host == own {
			return true
		}
	}
	return false
}

// underOwn reports whether host is under PUBLIC_SURVEY_DOMAIN (a deeper
// name than a subdomain, which no custom domain can be).
func (c Config) underOwn(host string) bool {
	return c.Domain != "" && strings.HasSuffix(host, "."+c.Domain)
}

// subdomainOf is the name of a host one label under PUBLIC_SURVEY_DOMAIN.
// A label no subdomain can be (say, one longer than a DynamoDB key takes)
// is no name: the host serves nothing, without a read.
func (r *Resolver) subdomainOf(host string) (string, bool) {
	if r.cfg.Domain == "" {
		return "", false
	}
	name, ok := strings.CutSuffix(host, "."+r.cfg.Domain)
	if !ok || !survey.ValidSubdomainName(name) {
		return "", false
	}
	return name, true
}

// Serving reports whether path is a route that serves an account's
// surveys by host: the pages (/s/, /r/), section 11's public API and the
// page's assets (the service worker is under /s/).
func Serving(path string) bool {
	for _, p := range []string{"/s/", "/r/", "/api/public/", "/assets/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}
