// Package dnstest runs an authoritative DNS server on 127.0.0.1 (UDP and
// TCP, one port) whose records a test sets and removes, for the custom
// domain checks (contract section 23) to read through DNS_RESOLVER.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Server answers the records it holds; any other name NXDOMAIN.
type Server struct {
	// Addr is host:port, for DNS_RESOLVER.
	Addr string
	mu   sync.Mutex
	rrs  map[string][]dns.RR // by lower-case FQDN
	// Fail makes every answer SERVFAIL (a resolver that cannot answer).
	fail bool
}

// Start runs a server for the test's life.
func Start(t testing.TB) *Server {
	t.Helper()
	// UDP picks a free port; TCP needs the same number, which another
	// process may hold (seen in make test: "address already in use"), so
	// a taken one makes it try another.
	var pc net.PacketConn
	var ln net.Listener
	for try := 1; ; try++ {
		var err error
		if pc, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		if ln, err = net.Listen("tcp", pc.LocalAddr().String()); err == nil {
			break
		}
		_ = pc.Close()
		if try == 50 {
			t.Fatalf("dnstest: no port free for both UDP and TCP: %v", err)
		}
	}
	s := &Server{Addr: pc.LocalAddr().String(), rrs: map[string][]dns.RR{}}
	udp := &dns.Server{PacketConn: pc, Handler: s}
	tcp := &dns.Server{Listener: ln, Handler: s}
	go func() { _ = udp.ActivateAndServe() }()
	go func() { _ = tcp.ActivateAndServe() }()
	t.Cleanup(func() {
		_ = udp.Shutdown()
		_ = tcp.Shutdown()
	})
	return s
}

// SetTXT replaces name's TXT records with one record of these strings.
func (s *Server) SetTXT(name string, strs ...string) {
	s.set(name, dns.TypeTXT, &dns.TXT{Hdr: hdr(name, dns.TypeTXT), Txt: strs})
}

// SetCNAME replaces name's CNAME with target.
func (s *Server) SetCNAME(name, target string) {
	s.set(name, dns.TypeCNAME, &dns.CNAME{Hdr: hdr(name, dns.TypeCNAME), Target: dns.Fqdn(target)})
}

// Remove deletes name's records of type t (dns.TypeTXT, dns.TypeCNAME).
func (s *Server) Remove(name string, t uint16) { s.set(name, t, nil) }

// SetFail makes the server answer SERVFAIL (true) or its records (false).
func (s *Server) SetFail(fail bool) {
	s.mu.Lock()
	s.fail = fail
	s.mu.Unlock()
}

func hdr(name string, t uint16) dns.RR_Header {
	return dns.RR_Header{Name: dns.Fqdn(strings.ToLower(name)), Rrtype: t, Class: dns.ClassINET, Ttl: 60}
}

func (s *Server) set(name string, t uint16, rr dns.RR) {
	key := dns.Fqdn(strings.ToLower(name))
	s.mu.Lock()
	defer s.mu.Unlock()
	var keep []dns.RR
	for _, r := range s.rrs[key] {
		if r.Header().Rrtype != t {
			keep = append(keep, r)
		}
	}
	if rr != nil {
		keep = append(keep, rr)
	}
	s.rrs[key] = keep
}

// ServeDNS answers a question from the records held.
func (s *Server) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	s.mu.Lock()
	if s.fail {
		m.Rcode = dns.RcodeServerFailure
	} else if len(req.Question) == 1 {
		q := req.Question[0]
		rrs, ok := s.rrs[strings.ToLower(q.Name)]
		for _, r := range rrs {
			if r.Header().Rrtype == q.Qtype {
				m.Answer = append(m.Answer, dns.Copy(r))
			}
		}
		if !ok || len(rrs) == 0 {
			m.Rcode = dns.RcodeNameError
		}
	}
	s.mu.Unlock()
	_ = w.WriteMsg(m)
}
