package responding

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"surveyservice/shared/survey"
)

// Refusals of an address to prove (contract section 18).
var (
	ErrInvalidEmail   = survey.FieldError("address", "Enter a valid email address.")
	ErrAddressRefused = survey.FieldError("address", "This address may not respond to this survey.")
)

// MaxEmail bounds an email address in bytes (RFC 5321's path limit less
// its brackets).
const MaxEmail = 254

// EmailIdentity is the identity an email address proves on a survey whose
// service_auth_domains are domains: the address lower-cased with its
// domain in punycode, so that one mailbox is one identity however it is
// typed (contract section 18). A malformed address answers ErrInvalidEmail
// (400); one that matches none of a non-empty domains list, each
// `*@<domain>` compared exactly (a subdomain is another domain),
// ErrAddressRefused (400).
func EmailIdentity(address string, domains []string) (string, error) {
	email, ok := normalEmail(strings.TrimSpace(dropDirectionMarks(address)))
	if !ok {
		return "", ErrInvalidEmail
	}
	if len(domains) == 0 {
		return email, nil
	}
	_, domain, _ := strings.Cut(email, "@")
	for _, p := range domains {
		d, ok := strings.CutPrefix(p, "*@")
		if !ok {
			continue
		}
		if ascii, err := idna.Lookup.ToASCII(d); err == nil && strings.ToLower(ascii) == domain {
			return email, nil
		}
	}
	return "", ErrAddressRefused
}

// EmailPerson is the person a proven address (EmailIdentity's form) stands
// for, for one response per person (service_auth_no_spam, contract
// section 18 as amended): the local part's "+tag" dropped, so that
// a+tag@example.com and a@example.com, one mailbox, claim one response.
// An address whose local part starts with "+" is kept whole.
func EmailPerson(email string) string {
	at := strings.LastIndexByte(email, '@')
	if at <= 0 {
		return strings.ToLower(email)
	}
	local, domain := email[:at], email[at:]
	if i := strings.IndexByte(local, '+'); i > 0 {
		local = local[:i]
	}
	return strings.ToLower(local + domain)
}

// dropDirectionMarks drops the invisible direction marks (Unicode's
// Bidi_Control: U+200E, U+200F, U+061C, U+202A-U+202E, U+2066-U+2069) an
// address copied out of Persian or Arabic text carries: none may stand in
// an address, so it is the address the responder sees.
func dropDirectionMarks(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, s)
}

// normalEmail is a dot-atom local part (RFC 5322, ASCII) at a domain name
// of two or more labels, Unicode domains by their IDNA form, lower-cased.
func normalEmail(s string) (string, bool) {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || len(s) > 4*MaxEmail || !utf8.ValidString(s) {
		return "", false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 || !dotAtom(local) || !survey.ValidAuthDomain("*@"+domain) {
		return "", false
	}
	ascii, err := idna.Lookup.ToASCII(domain)
	if err != nil || !survey.ValidAuthDomain("*@"+ascii) { // its ASCII form is valid as itself
		return "", false
	}
	email := strings.ToLower(local + "@" + ascii)
	if len(email) > MaxEmail {
		return "", false
	}
	return email, true
}

// dotAtom reports whether s is atoms of atext joined by single dots.
func dotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.':
		case strings.IndexByte("!#$%&'*+/=?^_`{|}~-", c) >= 0:
		default:
			return false
		}
	}
	return true
}
