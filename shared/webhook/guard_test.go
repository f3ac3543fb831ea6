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
