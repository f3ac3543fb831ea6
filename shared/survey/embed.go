package survey

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// AnyOrigin, alone in embed_origins, lets any site embed the survey.
//
// Embedding (contract section 17): the responder's page may be shown in an
// iframe on the sites that the setting embed_origins names.
const AnyOrigin = "*"

// MaxEmbedOrigins bounds embed_origins.
const MaxEmbedOrigins = 20

// Messages of embed_origins.
const (
	MsgEmbedOrigin     = "Enter a valid origin: https://host or https://host:port (http:// only for localhost and loopback addresses)."
	MsgEmbedAnyAlone   = `"*" allows every site and cannot be combined with origins.`
	MsgEmbedOriginsMin = "Ensure this field has at least 1 elements."
	MsgEmbedOriginsMax = "Ensure this field has no more than 20 elements."
)

// DefaultEmbedOrigins is embed_origins until the owner sets it: any site,
// as Typeform and Google Forms allow.
func DefaultEmbedOrigins() []string { return []string{AnyOrigin} }

// Embedders is embed_origins, with its default.
func (s Settings) Embedders() []string {
	if s.EmbedOrigins == nil {
		return DefaultEmbedOrigins()
	}
	return s.EmbedOrigins
}

// FrameAncestors is the responder's page's CSP frame-ancestors source list
// for embed_origins.
func FrameAncestors(origins []string) string {
	if len(origins) == 0 {
		return "'none'"
	}
	return strings.Join(origins, " ")
}

// NormalizeOrigin checks one origin of embed_origins and returns it as the
// browser serializes origins (lower-case scheme and host, no default
// port): https with any host, or http with localhost or a loopback
// address (which browsers treat as secure). ok is false for anything
// else: a path, query, fragment or user, a wildcard, a bad host or port.
func NormalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" ||
		(u.Path != "" && u.Path != "/") || strings.HasSuffix(s, "/") && u.Path != "/" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if host == "" || strings.ContainsAny(host, "*%") {
		return "", false
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	switch {
	case scheme == "https":
	case scheme == "http" && loopback:
	default:
		return "", false
	}
	if ip == nil {
		ascii, err := idna.Lookup.ToASCII(host)
		if err != nil || (ascii != "localhost" && !strings.Contains(ascii, ".")) || !validLabels(ascii) {
			return "", false
		}
		host = ascii
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return "", false
		}
		if scheme == "https" && n == 443 || scheme == "http" && n == 80 {
			port = ""
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", false
	}
	out := scheme + "://" + host
	if port != "" {
		out += ":" + port
	}
	return out, true
}

// validLabels reports whether every label of an ASCII host name has 1 to
// 63 characters: "a..com" or ".a.com" names no host (IDNA's lookup
// profile lets empty labels through).
func validLabels(host string) bool {
	if len(host) > 253 {
		return false
	}
	for label := range strings.SplitSeq(host, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
	}
	return true
}

// CheckEmbedOrigins validates embed_origins and answers them normalized:
// 1 to MaxEmbedOrigins origins, or "*" alone. Errors are by item index
// (DRF's ListField child errors) or, for the list as a whole, a message.
func CheckEmbedOrigins(in []string) (out []string, itemErrs map[string]any, listErr string) {
	switch {
	case len(in) == 0:
		return nil, nil, MsgEmbedOriginsMin
	case len(in) > MaxEmbedOrigins:
		return nil, nil, MsgEmbedOriginsMax
	}
	for _, o := range in {
		if strings.TrimSpace(o) == AnyOrigin {
			if len(in) > 1 {
				return nil, nil, MsgEmbedAnyAlone
			}
			return DefaultEmbedOrigins(), nil, ""
		}
	}
	seen := map[string]bool{}
	for i, o := range in {
		n, ok := NormalizeOrigin(strings.TrimSpace(o))
		if !ok {
			if itemErrs == nil {
				itemErrs = map[string]any{}
			}
			itemErrs[strconv.Itoa(i)] = []string{MsgEmbedOrigin}
			continue
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if itemErrs != nil {
		return nil, itemErrs, ""
	}
	return out, nil, ""
}
