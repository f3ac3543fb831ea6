package api

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"surveyservice/shared/survey"
)

// KeyStore finds the account that owns an API key, by the key's SHA-256
// hash; an unknown or revoked key answers ENOTFOUND.
type KeyStore interface {
	AccountByKeyHash(ctx context.Context, hashHex string) (survey.Account, error)
}

// AuthCacheTTL is how long a Lambda container trusts what it learned about a
// key. A revoked key stops working within this time (the contract allows 60 s).
const AuthCacheTTL = 30 * time.Second

// authCacheMax bounds the cache; when full it starts over.
const authCacheMax = 10000

var (
	errNoCredentials = survey.Errorf(survey.EUNAUTHORIZED, "Authentication credentials were not provided.")
	errInvalidKey    = survey.Errorf(survey.EUNAUTHORIZED, "Invalid API key.")
)

// Authenticator checks `Authorization: API-Key <key>` and caches answers
// (known and unknown keys alike) per container for AuthCacheTTL.
type Authenticator struct {
	keys KeyStore
	// Now is the clock; tests move it.
	Now func() time.Time

	mu    sync.Mutex
	cache map[string]authEntry
}

type authEntry struct {
	account survey.Account
	ok      bool
	expires time.Time
}

// NewAuthenticator returns an Authenticator reading keys from ks.
func NewAuthenticator(ks KeyStore) *Authenticator {
	return &Authenticator{keys: ks, Now: time.Now, cache: map[string]authEntry{}}
}

type accountKey struct{}

// AccountFrom returns the authenticated account of the request.
func AccountFrom(ctx context.Context) (survey.Account, bool) {
	a, ok := ctx.Value(accountKey{}).(survey.Account)
	return a, ok
}

// Require answers 401 unless the request carries a valid key, and otherwise
// passes the request on with its account (see AccountFrom).
func (a *Authenticator) Require(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acct, err := a.Authenticate(r.Context(), r.Header.Values("Authorization"))
		if err != nil {
			Error(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "private, no-cache")
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), accountKey{}, acct)))
	})
}

// Authenticate resolves the Authorization header values to an account. The
// scheme is matched case-insensitively; another scheme, or none, is "not
// provided"; a malformed key is refused before any store read.
func (a *Authenticator) Authenticate(ctx context.Context, header []string) (survey.Account, error) {
	if len(header) == 0 {
		return survey.Account{}, errNoCredentials
	}
	if len(header) > 1 {
		return survey.Account{}, errInvalidKey
	}
	scheme, key, _ := strings.Cut(strings.TrimSpace(header[0]), " ")
	if !asciiEqualFold(scheme, "API-Key") {
		return survey.Account{}, errNoCredentials
	}
	key = strings.TrimSpace(key)
	if !survey.WellFormedKey(key) {
		return survey.Account{}, errInvalidKey
	}
	hash := survey.HashKey(key)
	now := a.Now()
	a.mu.Lock()
	e, hit := a.cache[hash]
	a.mu.Unlock()
	if !hit || now.After(e.expires) {
		acct, err := a.keys.AccountByKeyHash(ctx, hash)
		switch survey.ErrorCode(err) {
		case "":
			e = authEntry{account: acct, ok: true, expires: now.Add(AuthCacheTTL)}
		case survey.ENOTFOUND:
			e = authEntry{ok: false, expires: now.Add(AuthCacheTTL)}
		default:
			return survey.Account{}, err
		}
		a.mu.Lock()
		if len(a.cache) >= authCacheMax {
			a.cache = map[string]authEntry{}
		}
		a.cache[hash] = e
		a.mu.Unlock()
	}
	if !e.ok {
		return survey.Account{}, errInvalidKey
	}
	return e.account, nil
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
