package survey

import (
	"encoding/json"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// The custom domain rules of contract section 23, in one place.
const (
	// MaxDomains is how many domains (any status) an account may hold.
	MaxDomains = 5
	// DomainRelease is how long an active domain may fail its daily check
	// (suspended meanwhile) before it is released.
	DomainRelease = 7 * 24 * time.Hour
	// VerificationLabel is the label under a domain that holds the TXT value.
	VerificationLabel = "_survey-verification"
	// Domain statuses.
	DomainPending   = "pending"
	DomainActive    = "active"
	DomainSuspended = "suspended"
	// EventDomainSuspended is the webhook event of a suspended domain.
	EventDomainSuspended = "domain.suspended"
)

// The custom domain messages of contract section 23.
const (
	MsgDomainInvalid = "Enter a valid domain name: a host name of at least two labels, not an IP address."
	MsgDomainOwn     = "This domain belongs to the service."
	MsgDomainInUse   = "This domain is in use."
	MsgDomainPlan    = "Custom domains need the Enterprise plan."
	MsgDomainsMax    = "An account holds at most 5 domains."
)

// MsgTXTMissing and MsgCNAMEMissing are a failed verify's details.
func MsgTXTMissing(domain string) string {
	return "The TXT record " + VerificationLabel + "." + domain + " does not hold this claim's value."
}

// MsgCNAMEMissing names the CNAME a failed verify did not find.
func MsgCNAMEMissing(domain, target string) string {
	return "The CNAME record of " + domain + " does not point at " + target + "."
}

// Verification is the record an owner publishes to prove a claim.
type Verification struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Domain is an account's custom domain (the one field list of its answer).
type Domain struct {
	ID           int64        `json:"id"`
	Domain       string       `json:"domain"`
	Status       string       `json:"status"`
	Verification Verification `json:"verification"`
	CNAMETarget  string       `json:"cname_target"`
	CheckedAt    *string      `json:"checked_at"`
}

// idnaProfile is the lookup profile of UTS #46: what a browser does with
// a name typed in its address bar, so a claim compares as DNS sees it.
var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(true), idna.ValidateLabels(true),
	idna.BidiRule(), idna.VerifyDNSLength(true))

// NormalizeDomain is raw as DNS sees it: trimmed, without a final dot,
// lower-cased, Unicode labels in punycode. ok is false for anything that
// is not a host name of at least two labels of letters, digits and -
// (an IP address, a port, a path, a wildcard, an all-numeric top label).
func NormalizeDomain(raw string) (string, bool) {
	s := strings.TrimSuffix(strings.TrimSpace(raw), ".")
	if s == "" || len(s) > 253*4 || !utf8.ValidString(s) || net.ParseIP(strings.Trim(s, "[]")) != nil {
		return "", false
	}
	a, err := idnaProfile.ToASCII(s)
	if err != nil || len(a) > 253 {
		return "", false
	}
	a = strings.ToLower(a)
	if again, err := idnaProfile.ToASCII(a); err != nil || again != a {
		return "", false // punycode that does not decode to a valid name
	}
	labels := strings.Split(a, ".")
	if len(labels) < 2 {
		return "", false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", false
		}
		for _, c := range []byte(l) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", false
			}
		}
	}
	top := labels[len(labels)-1]
	if strings.Trim(top, "0123456789") == "" { // 10.0.0.1-like names are addresses, not hosts
		return "", false
	}
	return a, true
}

// CheckDomain normalizes a requested domain and refuses the service's own
// names (own: its hosts, PUBLIC_SURVEY_DOMAIN and DOMAINS_TARGET_SUFFIX)
// and every name under them: EINVALID on `domain`.
func CheckDomain(raw string, own []string) (string, error) {
	d, ok := NormalizeDomain(raw)
	if !ok {
		return "", FieldError("domain", MsgDomainInvalid)
	}
	for _, o := range own {
		o = strings.ToLower(strings.TrimSuffix(o, "."))
		if o != "" && (d == o || strings.HasSuffix(d, "."+o)) {
			return "", FieldError("domain", MsgDomainOwn)
		}
	}
	return d, nil
}

// CustomURLs are a survey's addresses on the account's active custom
// domains (contract section 23's custom_urls): always https, as CloudFront
// serves custom domains with a managed certificate.
func CustomURLs(domains []string, urlSlug string) []string {
	out := make([]string, 0, len(domains))
	for _, d := range domains {
		out = append(out, "https://"+d+"/s/"+url.PathEscape(urlSlug)+"/")
	}
	return out
}

// DomainSuspendedData is the domain.suspended event's data (contract
// section 23): {"domain_id", "domain"}.
func DomainSuspendedData(id int64, domain string) json.RawMessage {
	b, _ := json.Marshal(struct {
		DomainID int64  `json:"domain_id"`
		Domain   string `json:"domain"`
	}{id, domain})
	return b
}

// DomainSuspendedText is the owner's email of a suspended domain. Accounts
// have no language of their own (the survey's language is a survey's), so
// it is in English.
func DomainSuspendedText(domain, target string) (subject, body string) {
	subject = "Your domain " + domain + " is suspended"
	body = "The daily check of your custom domain " + domain + " did not find its records:\n\n" +
		"  " + VerificationLabel + "." + domain + "  TXT    (the claim's value)\n" +
		"  " + domain + "  CNAME  " + target + "\n\n" +
		"Your surveys are not served at " + domain + " until both are back. The next daily check that finds them makes it active again; " +
		"after 7 days of failing checks the domain is released, and claiming it again needs a new TXT value.\n"
	return subject, body
}
