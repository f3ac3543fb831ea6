package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// Resolver looks host names up; *net.Resolver implements it, tests inject
// their own.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard decides which webhook URLs and addresses are allowed.
//
// The guard against server-side request forgery. A webhook URL is the
// owner's to choose, and the service POSTs to it from inside AWS: pointed
// at 169.254.169.254, 10.0.0.5 or localhost it would reach what no outsider
// should. So a URL is refused at creation when its host is, or resolves to,
// such an address, and again at every delivery: the delivery resolves the
// name itself, checks every address, and connects to an address it checked
// (a second lookup by the HTTP client could answer differently: DNS
// rebinding). No proxy from the environment is used, and redirects are not
// followed.
type Guard struct {
	// Resolver is used for host names; nil means net.DefaultResolver.
	Resolver Resolver
	// AllowLoopback admits loopback addresses (and plain http to them):
	// for local runs and tests only, never in AWS.
	AllowLoopback bool
}

// Messages of a refused URL, as the 400 on "url" answers them.
const (
	MsgInvalidURL = "Enter a valid URL."
	MsgHTTPS      = "The URL must use https."
	MsgUserinfo   = "The URL may not contain a user name or password; send credentials as webhook headers."
	MsgInternal   = "The URL's host is or resolves to a private, loopback, link-local or cloud metadata address."
	MsgNoHost     = "The URL's host name does not resolve."
	// MaxURL bounds a webhook URL, in characters.
	MaxURL = 2000
)

// RefusedError is a URL or address the guard refuses; its message is fit
// for the client.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

func refused(msg string) error { return &RefusedError{Msg: msg} }

// blocked are the ranges no delivery may reach, beyond what netip's
// predicates (private, loopback, link-local, multicast, unspecified) cover.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),      // shared address space (carrier NAT; Alibaba's metadata)
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments (Oracle's metadata)
	netip.MustParsePrefix("192.0.2.0/24"),       // documentation
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"),    // documentation
	netip.MustParsePrefix("203.0.113.0/24"),     // documentation
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved, and broadcast
	netip.MustParsePrefix("fd00:ec2::254/128"),  // EC2 metadata over IPv6 (also in fc00::/7)
	netip.MustParsePrefix("::/96"),              // IPv4-compatible (deprecated)
	netip.MustParsePrefix("100::/64"),           // discard
	netip.MustParsePrefix("2001:db8::/32"),      // documentation
	netip.MustParsePrefix("2001::/32"),          // Teredo: tunnels to an IPv4 address
	netip.MustParsePrefix("fec0::/10"),          // site-local (deprecated)
	netip.MustParsePrefix("64:ff9b:1::/48"),     // local-use NAT64
	netip.MustParsePrefix("169.254.169.254/32"), // cloud metadata (also link-local)
}

// nat64 and sixToFour embed an IPv4 address that is checked in turn.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// Allowed reports whether a delivery may connect to ip.
func (g Guard) Allowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Zone() != "" {
		return false
	}
	if ip.IsLoopback() {
		return g.AllowLoopback
	}
	if !ip.IsValid() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		return g.Allowed(netip.AddrFrom4([4]byte(b[12:16])))
	}
	if sixToFour.Contains(ip) {
		b := ip.As16()
		return g.Allowed(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return true
}

// ParseURL checks a webhook URL's form, without resolving anything: an
// absolute http(s) URL of at most MaxURL characters with a host, no user
// information and no fragment; https unless the host is a loopback address
// or localhost and loopback is allowed (plain http then, for local runs).
// Errors are *RefusedError.
func (g Guard) ParseURL(raw string) (*url.URL, error) {
	if raw == "" || utf8.RuneCountInString(raw) > MaxURL || strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, refused(MsgInvalidURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" || u.Host == "" || u.Hostname() == "" || u.Fragment != "" || strings.HasSuffix(u.Host, ":") {
		return nil, refused(MsgInvalidURL)
	}
	if u.User != nil {
		return nil, refused(MsgUserinfo)
	}
	host := u.Hostname()
	if strings.Contains(host, "%") {
		return nil, refused(MsgInvalidURL) // an IPv6 zone names a local interface
	}
	if p := u.Port(); p != "" {
		if n, ok := portNumber(p); !ok || n == 0 {
			return nil, refused(MsgInvalidURL)
		}
	}
	if ip, numeric := numericHost(host); numeric {
		return nil, g.refuseNumeric(ip)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !g.AllowLoopback || !loopbackName(host) {
			return nil, refused(MsgHTTPS)
		}
	default:
		return nil, refused(MsgInvalidURL)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	return u, nil
}

func portNumber(p string) (int, bool) {
	if len(p) > 5 {
		return 0, false
	}
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= 65535
}

// loopbackName is a host that can only mean this machine: a loopback
// literal or localhost. A name that resolves to loopback is checked by its
// addresses, not here; plain http is only for these.
func loopbackName(host string) bool {
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().IsLoopback()
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// Resolve returns the addresses of host (a literal is its own address)
// and refuses the host when any of them is not allowed: an attacker's DNS
// that answers one public and one private address is refused whole.
func (g Guard) Resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		if !g.Allowed(ip) {
			return nil, refused(MsgInternal)
		}
		return []netip.Addr{ip}, nil
	}
	if ip, numeric := numericHost(host); numeric {
		return nil, g.refuseNumeric(ip) // never a lookup: see numeric.go
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, refused(MsgNoHost)
	}
	for _, ip := range addrs {
		if !g.Allowed(ip) {
			return nil, refused(MsgInternal)
		}
	}
	return addrs, nil
}

// CheckURL is the check at creation: ParseURL, then Resolve of its host.
func (g Guard) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	u, err := g.ParseURL(raw)
	if err != nil {
		return nil, err
	}
	if _, err := g.Resolve(ctx, u.Hostname()); err != nil {
		return nil, err
	}
	return u, nil
}

// DialContext connects to addr ("host:port") only through addresses the
// guard allows, resolved here and dialled as checked.
func (g Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := g.Resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	var errs []error
	for _, ip := range addrs {
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("webhook: dial %s: %w", host, errors.Join(errs...))
}

// Client returns the HTTP client deliveries use: every connection through
// DialContext, no proxy, no redirects followed (a 3xx is not a success),
// and timeout for the whole exchange.
func (g Guard) Client(timeout time.Duration) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          64,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
