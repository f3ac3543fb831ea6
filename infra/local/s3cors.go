package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
)

// s3CORS is a reverse proxy in front of moto's S3 for the responders'
// files (contract section 16). S3 answers a browser's POST of a file with
// the CORS headers of the bucket's rule; moto 5 stores the file but sends
// none on a POST, so the page's script could not tell that its upload
// succeeded. The proxy adds Access-Control-Allow-Origin (and Vary) to an
// answer that lacks it, for the one origin the bucket's rule allows;
// everything else passes as it is. It is used only with a local endpoint.
type s3CORS struct {
	origin string
	proxy  *httputil.ReverseProxy
}

func newS3CORS(target, origin string) (*s3CORS, error) {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("local: S3 endpoint %q: %v", target, err)
	}
	p := &s3CORS{origin: origin, proxy: httputil.NewSingleHostReverseProxy(u)}
	p.proxy.ModifyResponse = func(resp *http.Response) error {
		if o := resp.Request.Header.Get("Origin"); o == origin && resp.Header.Get("Access-Control-Allow-Origin") == "" {
			resp.Header.Set("Access-Control-Allow-Origin", o)
			resp.Header.Add("Vary", "Origin")
		}
		return nil
	}
	return p, nil
}

func (p *s3CORS) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.proxy.ServeHTTP(w, r) }

// listen serves the proxy on a loopback port; the answer is its address
// and a function that stops it.
func (p *s3CORS) listen() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: p}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}
