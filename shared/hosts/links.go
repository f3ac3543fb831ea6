package hosts

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"surveyservice/shared/survey"
)

// AccountSubdomains reads an account's subdomain, and what a host serves
// (Store); *store.Store implements it.
type AccountSubdomains interface {
	Store
	AccountSubdomain(ctx context.Context, aid int64) (*survey.Subdomain, error)
}

// Links chooses the base of the links a function writes for an account's
// surveys (Config.SurveyBase) from the account's record, remembered per
// container for CacheTTL: the pages see a change within a minute (contract
// section 23) and a warm page view costs no read.
type Links struct {
	cfg       Config
	publicURL string
	st        AccountSubdomains
	// hosts is what a custom domain serves, remembered with the pages'
	// own hosts (Resolver.Links): one cache of that per container.
	hosts *Resolver
	Now   func() time.Time
	mu    sync.Mutex
	cache map[int64]linkEntry
}

type linkEntry struct {
	base    string
	expires time.Time
}

// NewLinks returns Links over publicURL (PUBLIC_SURVEY_URL), with a
// Resolver of their own; a function that serves by host too takes
// Resolver.Links, so that both remember a domain in one place.
func NewLinks(cfg Config, publicURL string, st AccountSubdomains) *Links {
	return New(cfg, st).Links(publicURL, st)
}

// Links returns Links over publicURL (PUBLIC_SURVEY_URL) that learn what a
// custom domain serves from r, as the requests r wraps do.
func (r *Resolver) Links(publicURL string, st AccountSubdomains) *Links {
	return &Links{cfg: r.cfg, publicURL: publicURL, st: st, hosts: r, Now: time.Now, cache: map[int64]linkEntry{}}
}

// Base is where the account's links point. Without PUBLIC_SURVEY_DOMAIN it
// reads nothing; a failed read falls back to PUBLIC_SURVEY_URL, which
// still serves every survey, and is not remembered.
func (l *Links) Base(ctx context.Context, aid int64) string {
	if l == nil {
		return ""
	}
	if l.cfg.Domain == "" {
		return l.cfg.SurveyBase(l.publicURL, nil)
	}
	now := l.Now()
	l.mu.Lock()
	e, ok := l.cache[aid]
	l.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.base
	}
	sub, err := l.st.AccountSubdomain(ctx, aid)
	if err != nil {
		return l.cfg.SurveyBase(l.publicURL, nil)
	}
	base := l.cfg.SurveyBase(l.publicURL, sub)
	l.mu.Lock()
	if len(l.cache) >= cacheMax {
		l.cache = map[int64]linkEntry{}
	}
	l.cache[aid] = linkEntry{base: base, expires: now.Add(CacheTTL)}
	l.mu.Unlock()
	return base
}

// SubdomainBaseOf is the address (Config.SubdomainURL) of the subdomain
// that raw, a URL, is on, or "" when its host is no
// `<name>.<PUBLIC_SURVEY_DOMAIN>`: oEmbed takes a page's address there too.
func (l *Links) SubdomainBaseOf(raw string) string {
	if l == nil || l.cfg.Domain == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	name, ok := strings.CutSuffix(strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), "."+l.cfg.Domain)
	if !ok || name == "" || strings.Contains(name, ".") {
		return ""
	}
	return l.cfg.SubdomainURL(name)
}

// CustomDomainOf is the base of raw, a URL (its scheme as raw writes it,
// the domain, and Config.Port as a subdomain's address has it), when its
// host is an active custom domain, and the account
// that domain serves: oEmbed takes a page's address there (contract
// section 23). A host that is the service's own or under
// PUBLIC_SURVEY_DOMAIN, no domain name, or no active domain (pending,
// suspended, released, unknown) answers "" and 0. What a domain serves is
// remembered per container for CacheTTL by the Resolver the Links came
// from, the pages' own when they serve by host: a domain's change is seen
// within a minute, by oEmbed and the page at once.
func (l *Links) CustomDomainOf(ctx context.Context, raw string) (base string, aid int64, err error) {
	if l == nil {
		return "", 0, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", 0, nil
	}
	host := hostOf(u.Host)
	if l.cfg.own(host) {
		return "", 0, nil
	}
	domain, ok := survey.NormalizeDomain(host)
	if !ok || l.cfg.underOwn(domain) || domain == l.cfg.Domain {
		return "", 0, nil
	}
	h, err := l.hosts.resolve(ctx, domain, true)
	if err != nil || !h.Active {
		return "", 0, err
	}
	return u.Scheme + "://" + domain + l.cfg.portSuffix(), h.AccountID, nil
}
