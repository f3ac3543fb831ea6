package main

import (
	"bytes"
	"net"
	"sync"

	"surveyservice/shared/api/gateway"
)

// strayEscapes is a listener whose connections have the request line's
// target cleaned as API Gateway's adapter cleans a path (gateway.SafePath):
// a '%' that starts no valid escape becomes "%25". Go's server refuses such
// a request line itself with a plain-text 400 before any handler runs,
// where the deployed API answers the contract's JSON (a /api/templates/%ZZ/
// is a template that does not exist: 404).
type strayEscapes struct{ net.Listener }

func (l strayEscapes) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &cleanConn{Conn: c, lineStart: true}, nil
}

// cleanConn cleans each request line it reads: at the connection's start
// and after each response written, the next bytes a client sends begin a
// request (clients wait for an answer before sending the next request on
// a connection; a line is rewritten only when it reads as a request line).
type cleanConn struct {
	net.Conn
	mu        sync.Mutex
	lineStart bool
	pending   []byte
}

func (c *cleanConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		c.mu.Unlock()
		return n, nil
	}
	start := c.lineStart
	c.lineStart = false
	c.mu.Unlock()
	n, err := c.Conn.Read(p)
	if !start {
		return n, err
	}
	if n == 0 || !bytes.Contains(p[:n], []byte("\r\n")) {
		// Nothing yet (the server's background read, cut short), or not a
		// whole line (its first byte): the line is cleaned on a next read.
		c.mu.Lock()
		c.lineStart = true
		c.mu.Unlock()
		return n, err
	}
	cleaned, ok := cleanRequestLine(p[:n])
	if !ok {
		return n, err
	}
	m := copy(p, cleaned)
	c.mu.Lock()
	c.pending = append(c.pending, cleaned[m:]...)
	c.mu.Unlock()
	return m, err
}

func (c *cleanConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.lineStart = true
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// cleanRequestLine answers b with its first line's target cleaned, and
// whether it changed anything: b must start with a whole request line
// ("METHOD target HTTP/1.x\r\n").
func cleanRequestLine(b []byte) ([]byte, bool) {
	end := bytes.Index(b, []byte("\r\n"))
	if end < 0 {
		return nil, false
	}
	parts := bytes.Split(b[:end], []byte(" "))
	if len(parts) != 3 || !bytes.HasPrefix(parts[2], []byte("HTTP/1.")) || len(parts[0]) == 0 {
		return nil, false
	}
	// The method, or its tail when the server's background read took its
	// first byte.
	for _, r := range parts[0] {
		if r < 'A' || r > 'Z' {
			return nil, false
		}
	}
	target := string(parts[1])
	path, query, hasQuery := bytes.Cut(parts[1], []byte("?"))
	clean := gateway.SafePath(string(path))
	if hasQuery {
		clean += "?" + gateway.SafeQuery(string(query))
	}
	if clean == target {
		return nil, false
	}
	out := make([]byte, 0, len(b)+8)
	out = append(out, parts[0]...)
	out = append(out, ' ')
	out = append(out, clean...)
	out = append(out, ' ')
	out = append(out, parts[2]...)
	return append(out, b[end:]...), true
}
