// Package gateway runs an http.Handler as an AWS Lambda function behind an
// API Gateway HTTP API (payload format 2.0), through aws-lambda-go-api-proxy.
// The same handler serves `make run`, so the two cannot drift.
package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

// Handler is the Lambda entry point for h.
type Handler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// New adapts h. A raw path that is not valid percent-encoding would make the
// adapter fail the whole invocation (a 5xx from API Gateway); its stray '%'
// are escaped instead, so the path reaches the handler and answers 404.
func New(h http.Handler) Handler {
	adapter := httpadapter.NewV2(h)
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		ev.RawPath = SafePath(ev.RawPath)
		if ev.RawPath == "" {
			ev.RequestContext.HTTP.Path = SafePath(ev.RequestContext.HTTP.Path)
		}
		ev.RawQueryString = SafeQuery(ev.RawQueryString)
		return adapter.ProxyWithContext(ctx, ev)
	}
}

// Start runs h as the Lambda function of this process; it never returns.
func Start(h http.Handler) { lambda.Start(New(h)) }

// SafePath returns p with every '%' that does not start a valid escape
// written as "%25", and spaces, control characters, '?' and '#' escaped, so
// that the adapter always parses it, and parses it as one path.
func SafePath(p string) string { return escapeStray(p, "?#") }

// SafeQuery does the same for a raw query string ('?' is allowed there).
func SafeQuery(q string) string { return escapeStray(q, "#") }

func escapeStray(s, reserved string) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		c := s[i]
		clean = !(c <= ' ' || c == 0x7f || strings.IndexByte(reserved, c) >= 0 ||
			(c == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]))))
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])):
			b.WriteString("%25")
		case c <= ' ' || c == 0x7f || strings.IndexByte(reserved, c) >= 0:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
