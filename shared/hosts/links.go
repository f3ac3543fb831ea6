package hosts

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"surveyservice/shared/survey"
)

// AccountSubdomains reads an account's subdomain; *store.Store implements it.
type AccountSubdomains interface {
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
	Now       func() time.Time
	mu        sync.Mutex
	cache     map[int64]linkEntry
}

type linkEntry struct {
	base    string
	expires time.Time
}

// NewLinks returns Links over publicURL (PUBLIC_SURVEY_URL).
func NewLinks(cfg Config, publicURL string, st AccountSubdomains) *Links {
	return &Links{cfg: cfg, publicURL: publicURL, st: st, Now: time.Now, cache: map[int64]linkEntry{}}
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
	name, ok := strings.CutSuffix(strings.ToLower(u.Hostname()), "."+l.cfg.Domain)
	if !ok || name == "" || strings.Contains(name, ".") {
		return ""
	}
	return l.cfg.SubdomainURL(name)
}
