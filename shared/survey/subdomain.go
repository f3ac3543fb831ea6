package survey

import (
	"strings"
	"time"
)

// SubdomainHold is how long a released or renamed subdomain stays its
// account's (contract section 23): another account finds it taken, and a
// renamed name's addresses answer 301 to the new name meanwhile.
const SubdomainHold = 30 * 24 * time.Hour

// The subdomain messages of contract section 23, in one place.
const (
	MsgSubdomainInvalid  = "Enter a valid subdomain: 3-63 characters of a-z, 0-9 and -, not starting or ending with -."
	MsgSubdomainTaken    = "This subdomain is taken."
	MsgSubdomainReserved = "This subdomain is reserved."
	MsgSubdomainPlan     = "Subdomains need the Pro plan."
)

// reservedSubdomains are names the service keeps for itself (its own hosts,
// its route prefixes, and names people trust): no account may claim them.
var reservedSubdomains = map[string]bool{
	"www": true, "api": true, "admin": true, "app": true, "mail": true, "static": true, "media": true,
	"docs": true, "status": true, "s": true, "r": true, "assets": true, "cdn": true, "help": true,
	"support": true, "blog": true, "auth": true, "login": true, "account": true, "accounts": true,
	"billing": true, "smtp": true, "imap": true, "pop": true, "ftp": true, "ns1": true, "ns2": true,
	"webmail": true, "dashboard": true, "console": true, "security": true, "domains": true,
	"localhost": true, "dev": true, "staging": true, "test": true, "root": true, "oembed": true,
}

// ReservedSubdomain reports whether name (lower-cased) is kept by the
// service: a listed name, or one with hyphens third and fourth, which
// IDNA keeps for its own labels ("xn--" and the punycode after it shows
// as Unicode: a look-alike of another account's name).
func ReservedSubdomain(name string) bool {
	return reservedSubdomains[name] || len(name) >= 4 && name[2:4] == "--"
}

// ValidSubdomainName reports whether name (lower-cased) is 3-63 characters
// of a-z, 0-9 and -, not starting or ending with -: one DNS label.
func ValidSubdomainName(name string) bool {
	if len(name) < 3 || len(name) > 63 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// CheckSubdomain lower-cases a requested name's A-Z (not Unicode's other
// capitals: the Kelvin sign would become k) and validates it: the invalid
// message first, then the reserved one (section 23). It returns the name
// to store, or EINVALID on `subdomain`.
func CheckSubdomain(raw string) (string, error) {
	name := strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, raw)
	if !ValidSubdomainName(name) {
		return "", FieldError("subdomain", MsgSubdomainInvalid)
	}
	if ReservedSubdomain(name) {
		return "", FieldError("subdomain", MsgSubdomainReserved)
	}
	return name, nil
}
