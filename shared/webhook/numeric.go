package webhook

import (
	"errors"
	"math"
	"net/netip"
	"strconv"
	"strings"
)

// MsgNumericHost refuses a host written as a number other than a.b.c.d.
const MsgNumericHost = "Write an IPv4 host as four decimal numbers (a.b.c.d)."

// numericHost reports whether host is an IPv4 address in a form other than
// canonical dotted decimal, as the WHATWG URL parser reads it ("ends in a
// number"), and the address it means when it is a valid one.
//
// Browsers, curl and the WHATWG URL standard read a host whose last label is
// a number as an IPv4 address in one of several forms: 2852039166,
// 0xa9fea9fe, 0251.0376.0251.0376 and 169.254.43518 all mean
// 169.254.169.254. Go's resolver would instead look such a host up as a
// name, so the guard could not see the address the owner meant, and another
// client of the same URL (a proxy, a receiver's redirect) could reach it.
// The guard refuses these forms outright, without any lookup: only the
// dotted decimal form a.b.c.d (and IPv6 literals) name an address.
func numericHost(host string) (ip netip.Addr, numeric bool) {
	if _, err := netip.ParseAddr(host); err == nil {
		return netip.Addr{}, false // a.b.c.d or an IPv6 literal: read as written
	}
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last == "" {
		return netip.Addr{}, false
	}
	if _, ok := ipv4Number(last); !ok && strings.Trim(last, "0123456789") != "" {
		return netip.Addr{}, false // a name such as hooks.example.com
	}
	// It ends in a number: an IPv4 address, or a host no client can use.
	if len(parts) > 4 {
		return netip.Addr{}, true
	}
	var v uint64
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, true
		}
		if i < len(parts)-1 {
			if n > 255 {
				return netip.Addr{}, true
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(5-len(parts))) {
			return netip.Addr{}, true
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4Number reads one part of an IPv4 host as the WHATWG URL standard
// does: 0x hexadecimal (0x alone is 0), a leading 0 octal, else decimal.
// ok is the syntax; a number too large for any part is still a number
// (math.MaxUint64 here), so the host still ends in one.
func ipv4Number(s string) (uint64, bool) {
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	if s == "" || strings.ContainsAny(s, "+-_") {
		return 0, false
	}
	n, err := strconv.ParseUint(s, base, 64)
	if errors.Is(err, strconv.ErrRange) {
		return math.MaxUint64, true
	}
	return n, err == nil
}

// refuseNumeric is the refusal of a numeric host: MsgInvalidURL when it is
// no address at all, MsgInternal when the address it means is one no
// delivery may reach, MsgNumericHost otherwise.
func (g Guard) refuseNumeric(ip netip.Addr) error {
	if !ip.IsValid() {
		return refused(MsgInvalidURL)
	}
	if !g.Allowed(ip) {
		return refused(MsgInternal)
	}
	return refused(MsgNumericHost)
}
