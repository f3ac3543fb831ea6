package api

import (
	"net"
	"net/http"
)

// ClientIP is the address of the client that sent r, as the network saw
// it: on Lambda the adapter puts API Gateway's requestContext.http.sourceIp
// in RemoteAddr (no port), locally it is the peer of the connection
// ("ip:port"). Forwarded headers (X-Forwarded-For, Forwarded) are never
// read: a client writes them, so a limit keyed by them would be a limit
// the client picks.
func ClientIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
