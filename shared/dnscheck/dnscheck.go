// Package dnscheck reads the records that prove a custom domain is its
// account's (contract section 23): the TXT record
// `_survey-verification.<domain>` holding the claim's value, and the
// domain's CNAME pointing at the account's target. It asks one resolver
// (DNS_RESOLVER, host:port; default the system's) through
// github.com/miekg/dns, never a hand-rolled parser.
package dnscheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"

	"surveyservice/shared/survey"
)

// ErrUnavailable is a resolver that did not answer (timeout, SERVFAIL,
// REFUSED): no verdict about the records. A verify answers 503, and the
// daily check leaves the domain as it was.
var ErrUnavailable = errors.New("dnscheck: the resolver did not answer")

// Checker looks records up.
type Checker struct {
	// Resolver is host:port.
	Resolver string
	// Timeout bounds one exchange.
	Timeout time.Duration
}

// New is a Checker asking resolver (DNS_RESOLVER); "" is the system's
// first nameserver (/etc/resolv.conf), or 127.0.0.1:53 without one.
func New(resolver string) *Checker {
	if resolver == "" {
		resolver = "127.0.0.1:53"
		if cc, err := dns.ClientConfigFromFile("/etc/resolv.conf"); err == nil && len(cc.Servers) > 0 {
			resolver = net.JoinHostPort(cc.Servers[0], cc.Port)
		}
	}
	return &Checker{Resolver: resolver, Timeout: 5 * time.Second}
}

// Result is what a check found.
type Result struct {
	// TXT: a string of a TXT record at the verification name equals the value.
	TXT bool
	// CNAME: the domain's CNAME is the target.
	CNAME bool
}

// OK reports whether both records hold.
func (r Result) OK() bool { return r.TXT && r.CNAME }

// Detail is a failed check's message: TXT first when both fail.
func (r Result) Detail(domain, target string) string {
	if !r.TXT {
		return survey.MsgTXTMissing(domain)
	}
	if !r.CNAME {
		return survey.MsgCNAMEMissing(domain, target)
	}
	return ""
}

// maxName is the longest name DNS carries, without its final dot.
const maxName = 253

// Check looks up domain's (punycode) two records: value in a TXT string
// of _survey-verification.<domain>, and a CNAME of domain equal to target.
func (c *Checker) Check(ctx context.Context, domain, value, target string) (Result, error) {
	var res Result
	// A name over DNS's 253 characters (a domain of more than 232 with
	// the label before it) holds no record: no question is asked, which
	// a resolver would refuse (FORMERR) as if it did not answer.
	var txt []dns.RR
	if name := survey.VerificationLabel + "." + domain; len(name) <= maxName {
		var err error
		if txt, err = c.lookup(ctx, name, dns.TypeTXT); err != nil {
			return res, err
		}
	}
	for _, rr := range txt {
		if t, ok := rr.(*dns.TXT); ok {
			for _, s := range t.Txt {
				if s == value {
					res.TXT = true
				}
			}
		}
	}
	cn, err := c.lookup(ctx, domain, dns.TypeCNAME)
	if err != nil {
		return res, err
	}
	want := strings.ToLower(dns.Fqdn(target))
	for _, rr := range cn {
		if t, ok := rr.(*dns.CNAME); ok && strings.EqualFold(t.Hdr.Name, dns.Fqdn(domain)) && strings.ToLower(t.Target) == want {
			res.CNAME = true
		}
	}
	return res, nil
}

// lookup asks the resolver for name's records of type t: the answer's
// records (none for NXDOMAIN or no data), or ErrUnavailable. A truncated
// UDP answer is asked again over TCP.
func (c *Checker) lookup(ctx context.Context, name string, t uint16) ([]dns.RR, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), t)
	m.RecursionDesired = true
	m.SetEdns0(4096, false)
	cl := &dns.Client{Timeout: c.Timeout}
	in, _, err := cl.ExchangeContext(ctx, m, c.Resolver)
	if err == nil && in.Truncated {
		cl.Net = "tcp"
		in, _, err = cl.ExchangeContext(ctx, m, c.Resolver)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %v", ErrUnavailable, dns.TypeToString[t], name, err)
	}
	switch in.Rcode {
	case dns.RcodeSuccess, dns.RcodeNameError:
		return in.Answer, nil
	default:
		return nil, fmt.Errorf("%w: %s %s: %s", ErrUnavailable, dns.TypeToString[t], name, dns.RcodeToString[in.Rcode])
	}
}
