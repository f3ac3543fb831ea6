package responding

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"time"

	"surveyservice/shared/api"
)

// ResponderCookieName names the responder cookie (contract section 16).
const ResponderCookieName = "responder"

// responderCookieAge is the cookie's life: one year.
const responderCookieAge = 365 * 24 * time.Hour

// ResponderCookie is the responder cookie of value for the request
// (contract section 16): random, HttpOnly, Secure, Path=/, a year;
// api.FrameCookie, the one place a responder's cookie takes its SameSite,
// makes it SameSite=Lax, or SameSite=None and Partitioned in another
// site's frame (section 17).
func ResponderCookie(r *http.Request, value string) *http.Cookie {
	return api.FrameCookie(r, &http.Cookie{
		Name: ResponderCookieName, Value: value, Path: "/", MaxAge: int(responderCookieAge / time.Second), Secure: true,
	})
}

// NewResponderValue is a new responder cookie's value: 32 random bytes.
func NewResponderValue() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// ResponderValue reads the request's responder cookie: "" when it has
// none, or one that is not ours (of another length or alphabet).
func ResponderValue(r *http.Request) string {
	c, err := r.Cookie(ResponderCookieName)
	if err != nil {
		return ""
	}
	if b, err := base64.RawURLEncoding.DecodeString(c.Value); err != nil || len(b) != 32 {
		return ""
	}
	return c.Value
}

// ResponderHash is what sessions and the store keep of a responder
// cookie: the first 16 bytes of its SHA-256.
func ResponderHash(value string) [16]byte {
	sum := sha256.Sum256([]byte(value))
	var h [16]byte
	copy(h[:], sum[:])
	return h
}

// EnsureResponder gives the response the request's responder cookie,
// setting a new one when the request has none (never replacing one), and
// answers its value. The sessions route of every survey calls it, so that
// no_spam may be turned on later.
func EnsureResponder(w http.ResponseWriter, r *http.Request) string {
	if v := ResponderValue(r); v != "" {
		return v
	}
	v := NewResponderValue()
	http.SetCookie(w, ResponderCookie(r, v))
	return v
}
