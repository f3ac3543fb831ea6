package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"surveyservice/shared/webhook"
)

// fakeDNS answers names from a map; anything else does not resolve.
type fakeDNS map[string][]string

func (f fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ips, ok := f[strings.ToLower(host)]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	out := make([]netip.Addr, len(ips))
	for i, s := range ips {
		out[i] = netip.MustParseAddr(s)
	}
	return out, nil
}

func TestAllowed(t *testing.T) {
	refused := []string{
		"10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.254", "192.168.1.1", // private
		"127.0.0.1", "127.1.2.3", "::1", // loopback
		"169.254.169.254", "169.254.0.1", "fe80::1", // link-local, metadata
		"fd00:ec2::254", "fc00::1", "fd12:3456::1", // unique local, EC2 metadata over IPv6
		"0.0.0.0", "0.1.2.3", "::", // unspecified, this network
		"224.0.0.1", "239.1.1.1", "ff02::1", "ff05::2", // multicast
		"100.64.0.1", "100.100.100.200", "192.0.0.192", "198.18.0.1", "240.0.0.1", "255.255.255.255",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", // IPv4-mapped
		"64:ff9b::a9fe:a9fe", "64:ff9b::a00:1", "2002:a9fe:a9fe::1", "2002:7f00:1::1", // NAT64, 6to4 of inner ones
		"::127.0.0.1", "2001:db8::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
	}
	allowed := []string{"93.184.216.34", "1.1.1.1", "8.8.8.8", "2606:4700:4700::1111", "64:ff9b::5db8:d822", "2002:5db8:d822::1", "172.32.0.1", "192.169.0.1"}
	g := webhook.Guard{}
	for _, s := range refused {
		if g.Allowed(netip.MustParseAddr(s)) {
			t.Errorf("%s is allowed", s)
		}
	}
	for _, s := range allowed {
		if !g.Allowed(netip.MustParseAddr(s)) {
			t.Errorf("%s is refused", s)
		}
	}
	local := webhook.Guard{AllowLoopback: true}
	for _, s := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1"} {
		if !local.Allowed(netip.MustParseAddr(s)) {
			t.Errorf("%s refused with loopback allowed", s)
		}
	}
	for _, s := range []string{"10.0.0.1", "169.254.169.254", "fd00:ec2::254"} {
		if local.Allowed(netip.MustParseAddr(s)) {
			t.Errorf("%s allowed with loopback allowed", s)
		}
	}
}

func TestParseURL(t *testing.T) {
	cases := []struct {
		url, msg string
		loopback bool
	}{
		{"https://hooks.example.com/in", "", false},
		{"https://hooks.example.com:8443/in?x=1", "", false},
		{"HTTPS://hooks.example.com/", "", false},
		{"http://hooks.example.com/in", webhook.MsgHTTPS, false},
		{"http://127.0.0.1:8080/in", webhook.MsgHTTPS, false},
		{"http://127.0.0.1:8080/in", "", true},
		{"http://localhost:8080/in", "", true},
		{"http://[::1]:8080/in", "", true},
		{"http://hooks.example.com/in", webhook.MsgHTTPS, true}, // http only to loopback
		{"ftp://hooks.example.com/", webhook.MsgInvalidURL, false},
		{"hooks.example.com/in", webhook.MsgInvalidURL, false},
		{"/relative", webhook.MsgInvalidURL, false},
		{"https://", webhook.MsgInvalidURL, false},
		{"https://:443/", webhook.MsgInvalidURL, false},
		{"https://user:pw@hooks.example.com/", webhook.MsgUserinfo, false},
		{"https://hooks.example.com/#frag", webhook.MsgInvalidURL, false},
		{"https://hooks.example.com:99999/", webhook.MsgInvalidURL, false},
		{"https://hooks.example.com:0/", webhook.MsgInvalidURL, false},
		{"https://[fe80::1%25eth0]/", webhook.MsgInvalidURL, false},
		{"https://hooks.example.com/a b", webhook.MsgInvalidURL, false},
		{"https://hooks.example.com/\n", webhook.MsgInvalidURL, false},
		{"", webhook.MsgInvalidURL, false},
		{"https://h.example.com/" + strings.Repeat("a", webhook.MaxURL), webhook.MsgInvalidURL, false},
	}
	for _, c := range cases {
		_, err := webhook.Guard{AllowLoopback: c.loopback}.ParseURL(c.url)
		var re *webhook.RefusedError
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%q (loopback %v): %v", c.url, c.loopback, err)
		case c.msg != "" && (!errors.As(err, &re) || re.Msg != c.msg):
			t.Errorf("%q (loopback %v) = %v, want %q", c.url, c.loopback, err, c.msg)
		}
	}
}

func TestCheckURLResolves(t *testing.T) {
	dns := fakeDNS{
		"public.example":   {"93.184.216.34"},
		"rebind.example":   {"93.184.216.34", "10.0.0.7"},
		"metadata.example": {"169.254.169.254"},
		"loop.example":     {"127.0.0.1"},
		"v6meta.example":   {"fd00:ec2::254"},
	}
	ctx := context.Background()
	cases := []struct {
		url, msg string
		loopback bool
	}{
		{"https://public.example/", "", false},
		{"https://rebind.example/", webhook.MsgInternal, false},
		{"https://metadata.example/", webhook.MsgInternal, false},
		{"https://v6meta.example/", webhook.MsgInternal, false},
		{"https://loop.example/", webhook.MsgInternal, false},
		{"https://loop.example/", "", true},
		{"https://nowhere.example/", webhook.MsgNoHost, false},
		{"https://10.1.2.3/", webhook.MsgInternal, false},
		{"https://169.254.169.254/latest/meta-data/", webhook.MsgInternal, false},
		{"https://[fd00:ec2::254]/", webhook.MsgInternal, false},
		{"https://[::ffff:a9fe:a9fe]/", webhook.MsgInternal, false},
		{"https://93.184.216.34/", "", false},
	}
	for _, c := range cases {
		_, err := webhook.Guard{Resolver: dns, AllowLoopback: c.loopback}.CheckURL(ctx, c.url)
		var re *webhook.RefusedError
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%s (loopback %v): %v", c.url, c.loopback, err)
		case c.msg != "" && (!errors.As(err, &re) || re.Msg != c.msg):
			t.Errorf("%s (loopback %v) = %v, want %q", c.url, c.loopback, err, c.msg)
		}
	}
}

// TestClientConnectsOnlyWhereChecked: a name that resolves to loopback is
// refused by the delivery client unless loopback is allowed, and then the
// client connects to the address it checked.
func TestClientConnectsOnlyWhereChecked(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	dns := fakeDNS{"hooks.test": {"127.0.0.1"}}
	url := "http://hooks.test:" + port + "/in"

	_, err := webhook.Guard{Resolver: dns}.Client(webhook.Timeout).Post(url, "application/json", nil)
	var re *webhook.RefusedError
	if !errors.As(err, &re) || re.Msg != webhook.MsgInternal {
		t.Fatalf("POST to a name resolving to 127.0.0.1 = %v, want refused", err)
	}
	if hits != 0 {
		t.Fatal("the receiver was reached")
	}
	resp, err := webhook.Guard{Resolver: dns, AllowLoopback: true}.Client(webhook.Timeout).Post(url, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hits != 1 {
		t.Fatalf("%d hits with loopback allowed", hits)
	}
	// Redirects are not followed: a 3xx is the answer.
	redirect := httptest.NewServer(http.RedirectHandler(srv.URL, http.StatusFound))
	defer redirect.Close()
	resp, err = webhook.Guard{AllowLoopback: true}.Client(webhook.Timeout).Post(redirect.URL, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || hits != 1 {
		t.Fatalf("redirect answered %d with %d hits; want 302 not followed", resp.StatusCode, hits)
	}
}

// refusingDNS fails the test when asked anything: the hosts given to it
// must be decided without a lookup.
type refusingDNS struct{ t *testing.T }

func (r refusingDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.t.Errorf("looked up %q", host)
	return nil, fmt.Errorf("no lookups here")
}

// TestNumericHostsRefusedWithoutLookup: the IPv4 forms browsers and curl
// read as addresses (decimal, hex, octal, fewer than four parts) are
// refused as such, at creation and at delivery, and never sent to DNS.
func TestNumericHostsRefusedWithoutLookup(t *testing.T) {
	cases := []struct{ host, msg string }{
		{"2852039166", webhook.MsgInternal},          // 169.254.169.254
		{"0xa9fea9fe", webhook.MsgInternal},          // the same in hex
		{"0XA9FEA9FE", webhook.MsgInternal},          // and upper case
		{"0251.0376.0251.0376", webhook.MsgInternal}, // octal parts
		{"0xa9.0xfe.0xa9.0xfe", webhook.MsgInternal}, // hex parts
		{"169.254.43518", webhook.MsgInternal},       // three parts
		{"169.16689662", webhook.MsgInternal},        // two parts
		{"0177.1", webhook.MsgInternal},              // 127.0.0.1
		{"2130706433", webhook.MsgInternal},          // 127.0.0.1
		{"017700000001", webhook.MsgInternal},        // 127.0.0.1 in octal
		{"0", webhook.MsgInternal},                   // 0.0.0.0
		{"0x", webhook.MsgInternal},                  // 0.0.0.0
		{"10.0.0.1.", webhook.MsgInternal},           // trailing dot
		{"169.254.169.254.", webhook.MsgInternal},    // trailing dot
		{"hooks.example.0x0a000001", webhook.MsgInvalidURL},
		{"1.2.3.4.5", webhook.MsgInvalidURL},
		{"1.2.3.256", webhook.MsgInvalidURL},
		{"4294967296", webhook.MsgInvalidURL},
		{"08.1.1.1", webhook.MsgInvalidURL},        // 08 is not octal
		{"1.2.3.0xg", ""},                          // a name: ends in a label that is not a number
		{"134744072", webhook.MsgNumericHost},      // 8.8.8.8: public, still refused
		{"0x08080808", webhook.MsgNumericHost},     // the same
		{"8.8.8.8.", webhook.MsgNumericHost},       // trailing dot
		{"93.184.216.034", webhook.MsgNumericHost}, // an octal part
	}
	for _, c := range cases {
		g := webhook.Guard{Resolver: refusingDNS{t}}
		if c.msg == "" {
			g.Resolver = fakeDNS{c.host: {"93.184.216.34"}}
		}
		for _, scheme := range []string{"https", "http"} {
			_, err := g.CheckURL(context.Background(), scheme+"://"+c.host+"/hook")
			var re *webhook.RefusedError
			want := c.msg
			if want == "" && scheme == "http" {
				want = webhook.MsgHTTPS
			}
			switch {
			case want == "" && err != nil:
				t.Errorf("%s: %v", c.host, err)
			case want != "" && (!errors.As(err, &re) || re.Msg != want):
				t.Errorf("%s://%s = %v, want %q", scheme, c.host, err, want)
			}
		}
		// At delivery, the dialer resolves the host itself: the same refusal.
		if c.msg != "" {
			_, err := g.Resolve(context.Background(), c.host)
			var re *webhook.RefusedError
			if !errors.As(err, &re) || re.Msg != c.msg {
				t.Errorf("Resolve(%s) = %v, want %q", c.host, err, c.msg)
			}
		}
	}
}

func FuzzParseURLHost(f *testing.F) {
	for _, s := range []string{"2852039166", "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518", "hooks.example.com", "1.2.3.4", "[::1]", "0x", "1.2.3.4.", "a.0x1", "09"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		g := webhook.Guard{Resolver: fakeDNS{}}
		u, err := g.ParseURL("https://" + host + "/")
		if err != nil {
			var re *webhook.RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("%q: %v is not a refusal", host, err)
			}
			return
		}
		// Whatever is accepted is a name, an IPv6 literal or a dotted-quad
		// address: never a host a browser would read as another address.
		h := u.Hostname()
		if _, err := netip.ParseAddr(h); err == nil {
			return
		}
		labels := strings.Split(strings.TrimSuffix(h, "."), ".")
		last := labels[len(labels)-1]
		if last != "" && strings.Trim(last, "0123456789") == "" {
			t.Fatalf("%q: accepted host %q ends in a number", host, h)
		}
		if l := strings.ToLower(last); strings.HasPrefix(l, "0x") && strings.Trim(l[2:], "0123456789abcdef") == "" {
			t.Fatalf("%q: accepted host %q ends in a hex number", host, h)
		}
	})
}
