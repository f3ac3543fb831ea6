package api

import (
	"bytes"
	"compress/gzip"
	"context"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// compressMin is the size below which gzip's header and the client's
// work cost more than the bytes saved.
const compressMin = 1024

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return w
}}

// Compress answers gzip to a request whose Accept-Encoding takes it, for
// a text response of at least compressMin bytes; it sets Vary:
// Accept-Encoding on every answer it could have compressed, and makes a
// compressed answer's ETag weak (the bytes differ, the entity does not).
//
// API Gateway HTTP APIs never compress what a function answers, so the
// function does: every text answer (HTML, CSS, script, SVG, JSON, CSV) of
// at least compressMin bytes, to a client that accepts gzip. Lambda sends
// a response whole, so buffering it here costs nothing a stream would
// save; the adapter then carries the gzip bytes base64-encoded.
func Compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !acceptsGzip(r.Header.Values("Accept-Encoding")) {
			// Nothing to compress: the answer goes out as written, with
			// the Vary a compressible one carries.
			next.ServeHTTP(&varyWriter{ResponseWriter: w}, r)
			return
		}
		cw := &compressWriter{w: w, head: r.Method == http.MethodHead}
		if cw.head {
			r = r.WithContext(context.WithValue(r.Context(), measureHead{}, true))
		}
		next.ServeHTTP(cw, r)
		cw.finish()
	})
}

// compressWriter holds the answer until the handler returns.
type compressWriter struct {
	w      http.ResponseWriter
	status int
	buf    bytes.Buffer
	// direct is set once the answer goes out as it is (Flush).
	direct bool
	// head: the answer to a HEAD, whose body is measured, never sent.
	head bool
}

func (c *compressWriter) Header() http.Header { return c.w.Header() }

func (c *compressWriter) WriteHeader(code int) {
	if c.direct {
		c.w.WriteHeader(code)
		return
	}
	if c.status == 0 {
		c.status = code
	}
}

func (c *compressWriter) Write(b []byte) (int, error) {
	if c.direct {
		if c.head {
			return len(b), nil
		}
		return c.w.Write(b)
	}
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.buf.Write(b)
}

// send writes b to the client, unless the answer is a HEAD's.
func (c *compressWriter) send(b []byte) {
	if !c.head {
		_, _ = c.w.Write(b)
	}
}

// Flush sends what is held as it is, and the rest unbuffered: a handler
// that flushes wants its bytes out now.
func (c *compressWriter) Flush() {
	if !c.direct {
		c.direct = true
		c.w.Header().Add("Vary", "Accept-Encoding")
		if c.status != 0 {
			c.w.WriteHeader(c.status)
		}
		c.send(c.buf.Bytes())
		c.buf.Reset()
	}
	if f, ok := c.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *compressWriter) finish() {
	if c.direct {
		return
	}
	h := c.w.Header()
	status := c.status
	if status == 0 {
		status = http.StatusOK
	}
	if !compressible(h) || status < 200 || status == http.StatusNoContent || status == http.StatusNotModified {
		c.w.WriteHeader(status)
		c.send(c.buf.Bytes())
		return
	}
	h.Add("Vary", "Accept-Encoding")
	if c.buf.Len() < compressMin {
		c.w.WriteHeader(status)
		c.send(c.buf.Bytes())
		return
	}
	var out bytes.Buffer
	out.Grow(c.buf.Len() / 3)
	gz := gzipWriters.Get().(*gzip.Writer)
	gz.Reset(&out)
	_, _ = gz.Write(c.buf.Bytes())
	_ = gz.Close()
	gzipWriters.Put(gz)
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", strconv.Itoa(out.Len()))
	if et := h.Get("ETag"); et != "" && !strings.HasPrefix(et, "W/") {
		h.Set("ETag", "W/"+et)
	}
	c.w.WriteHeader(status)
	c.send(out.Bytes())
}

// varyWriter adds Vary: Accept-Encoding to a compressible answer sent
// uncompressed, so that a cache keeps the two apart.
type varyWriter struct {
	http.ResponseWriter
	wrote bool
}

func (v *varyWriter) WriteHeader(code int) {
	if !v.wrote {
		v.wrote = true
		if compressible(v.Header()) && code != http.StatusNotModified {
			v.Header().Add("Vary", "Accept-Encoding")
		}
	}
	v.ResponseWriter.WriteHeader(code)
}

func (v *varyWriter) Write(b []byte) (int, error) {
	if !v.wrote {
		v.WriteHeader(http.StatusOK)
	}
	return v.ResponseWriter.Write(b)
}

// Flush passes a flush on.
func (v *varyWriter) Flush() {
	if f, ok := v.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// compressible is a text answer not already encoded.
func compressible(h http.Header) bool {
	if h.Get("Content-Encoding") != "" {
		return false
	}
	media, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return false
	}
	switch {
	case strings.HasPrefix(media, "text/"):
		return true
	case media == "application/json", media == "image/svg+xml", media == "application/javascript",
		strings.HasSuffix(media, "+json"), strings.HasSuffix(media, "+xml"):
		return true
	}
	return false
}

// acceptsGzip reads Accept-Encoding: gzip (or *) with a q-value above 0.
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "x-gzip" && name != "*" {
				continue
			}
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				if k, val, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
			if q > 0 {
				return true
			}
		}
	}
	return false
}

// measureHead marks a HEAD that accepts gzip: its handler writes the body,
// which Compress measures (a HEAD has the GET's Content-Length and ETag)
// and drops.
type measureHead struct{}

// WritesBody reports whether a handler writes its answer's body: for every
// method but HEAD, and for a HEAD whose compressed length Compress needs.
func WritesBody(r *http.Request) bool {
	return r.Method != http.MethodHead || r.Context().Value(measureHead{}) != nil
}
