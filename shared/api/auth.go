package api

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// KeyStore finds the account that owns an API key, by the key's SHA-256
// hash; an unknown or revoked key answers ENOTFOUND.
type KeyStore interface {
	AccountByKeyHash(ctx context.Context, hashHex string) (survey.Account, error)
}

// AuthCacheTTL is how long a Lambda container keeps what it learned of a
// key: an unknown or revoked one (a client retrying a bad key costs no
// read), and an owner's key's account. A revoked key answers 401 on the
// next request all the same (contract section 2): a kept owner's key is
// read again on every request (KeyChecker), its account is not.
const AuthCacheTTL = 30 * time.Second

// KeyChecker is a KeyStore that can read a key's item alone: its account,
// or ENOTFOUND once the key is revoked. With one, the Authenticator keeps
// an owner's key's account and reads only the key on the next requests;
// without one it keeps no valid key.
type KeyChecker interface {
	KeyLive(ctx context.Context, hashHex string) (int64, error)
}

// authCacheMax bounds the cache; when full it starts over.
const authCacheMax = 10000

var (
	errNoCredentials = survey.Errorf(survey.EUNAUTHORIZED, "Authentication credentials were not provided.")
	errInvalidKey    = survey.Errorf(survey.EUNAUTHORIZED, "Invalid API key.")
)

// Authenticator checks `Authorization: API-Key <key>`: a valid key's item
// is read on every request (its reads counted apart: awsenv.ForAuth), an
// owner's account and an unknown or revoked key are kept per container
// for AuthCacheTTL.
type Authenticator struct {
	keys KeyStore
	// Now is the clock; tests move it.
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]authEntry

	principals PrincipalStore
	checker    KeyChecker
	places     SurveyPlacer
	activity   ActivityLog
}

// authEntry is what a container learned of a key, until expires: the
// account of an owner's key (ok), or that the key is unknown or revoked.
type authEntry struct {
	account survey.Account
	ok      bool
	expires time.Time
}

// PrincipalStore resolves a key to who holds it, an owner or a member of
// the account (contract section 19). A KeyStore that implements it serves
// members' keys; members' answers are never cached, so a removed member
// or an ended share counts on the next request.
type PrincipalStore interface {
	PrincipalByKeyHash(ctx context.Context, hashHex string) (survey.Principal, error)
}

// NewAuthenticator returns an Authenticator reading keys from ks. When ks
// also implements PrincipalStore, SurveyPlacer and ActivityLog (the
// store does), members' keys, the access decision on their surveys and
// the activity log of writes are served too.
func NewAuthenticator(ks KeyStore) *Authenticator {
	a := &Authenticator{keys: ks, Now: time.Now, cache: map[string]authEntry{}}
	a.principals, _ = ks.(PrincipalStore)
	a.checker, _ = ks.(KeyChecker)
	a.places, _ = ks.(SurveyPlacer)
	a.activity, _ = ks.(ActivityLog)
	return a
}

type principalKey struct{}

// AccountFrom returns the authenticated account of the request: for a
// member, the account they are a member of.
func AccountFrom(ctx context.Context) (survey.Account, bool) {
	p, ok := ctx.Value(principalKey{}).(survey.Principal)
	return p.Account, ok
}

// PrincipalFrom returns who makes the request: the account and, for a
// member, the member and their shares.
func PrincipalFrom(ctx context.Context) (survey.Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(survey.Principal)
	return p, ok
}

// WithPrincipal returns ctx carrying p, as Require leaves it for the
// handlers (tests of handlers use it too).
func WithPrincipal(ctx context.Context, p survey.Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// Require answers 401 unless the request carries a valid key, and otherwise
// passes the request on with its principal (see AccountFrom,
// PrincipalFrom). It decides nothing about access: routes do, through
// the endpoint (access.go).
func (a *Authenticator) Require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.Principal(r.Context(), r.Header.Values("Authorization"))
		if err != nil {
			Error(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "private, no-cache")
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// Authenticate resolves the Authorization header values to an account (a
// member's key to their account); see Principal.
func (a *Authenticator) Authenticate(ctx context.Context, header []string) (survey.Account, error) {
	p, err := a.Principal(ctx, header)
	return p.Account, err
}

// Principal resolves the Authorization header values to who holds the
// key. The scheme is matched case-insensitively; another scheme, or none,
// is "not provided"; a malformed key is refused before any store read. A
// member's key of an account that left the team plan answers 403.
func (a *Authenticator) Principal(ctx context.Context, header []string) (survey.Principal, error) {
	if len(header) == 0 {
		return survey.Principal{}, errNoCredentials
	}
	if len(header) > 1 {
		return survey.Principal{}, errInvalidKey
	}
	scheme, key, _ := strings.Cut(strings.TrimSpace(header[0]), " ")
	if !asciiEqualFold(scheme, "API-Key") {
		return survey.Principal{}, errNoCredentials
	}
	key = strings.TrimSpace(key)
	if !survey.WellFormedKey(key) {
		return survey.Principal{}, errInvalidKey
	}
	hash := survey.HashKey(key)
	now := a.Now()
	a.mu.Lock()
	e, hit := a.cache[hash]
	a.mu.Unlock()
	actx := awsenv.ForAuth(ctx)
	if hit && !now.After(e.expires) {
		if !e.ok {
			return survey.Principal{}, errInvalidKey
		}
		// The account is kept; the key is read again, so that a
		// revocation counts on the next request.
		aid, err := a.checker.KeyLive(actx, hash)
		switch {
		case err == nil && aid == e.account.ID:
			return survey.Principal{Account: e.account}, nil
		case survey.ErrorCode(err) == survey.ENOTFOUND:
			a.mu.Lock()
			a.cache[hash] = authEntry{ok: false, expires: now.Add(AuthCacheTTL)}
			a.mu.Unlock()
			return survey.Principal{}, errInvalidKey
		case err != nil:
			return survey.Principal{}, err
		}
		// No longer the account's key: read it whole below.
	}
	var p survey.Principal
	var err error
	if a.principals != nil {
		p, err = a.principals.PrincipalByKeyHash(actx, hash)
	} else {
		p.Account, err = a.keys.AccountByKeyHash(actx, hash)
	}
	switch survey.ErrorCode(err) {
	case "":
		if p.Member != nil {
			// Never kept: a removal or a share ends on the next request.
			if !p.Account.Plan.Includes(survey.TeamPlan) {
				return survey.Principal{}, survey.ErrNoTeamPlan
			}
			return p, nil
		}
		if a.checker == nil {
			return p, nil // nothing can read the key alone: keep nothing
		}
		e = authEntry{account: p.Account, ok: true, expires: now.Add(AuthCacheTTL)}
	case survey.ENOTFOUND:
		e = authEntry{ok: false, expires: now.Add(AuthCacheTTL)}
	default:
		return survey.Principal{}, err
	}
	a.mu.Lock()
	if len(a.cache) >= authCacheMax {
		a.cache = map[string]authEntry{}
	}
	a.cache[hash] = e
	a.mu.Unlock()
	if !e.ok {
		return survey.Principal{}, errInvalidKey
	}
	return survey.Principal{Account: e.account}, nil
}

// asciiEqualFold compares ASCII case-insensitively, as HTTP schemes are
// compared; unlike strings.EqualFold it does not fold the Kelvin sign to k.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
