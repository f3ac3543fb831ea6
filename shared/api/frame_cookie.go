package api

import "net/http"

// InFrame reports whether the browser loads the request into a frame
// (Sec-Fetch-Dest: iframe or frame), as on a site that embeds a survey.
func InFrame(r *http.Request) bool {
	d := r.Header.Get("Sec-Fetch-Dest")
	return d == "iframe" || d == "frame"
}

// FrameCookie sets the attributes a cookie of the responder's side needs
// where the request is made (contract section 17): in a frame on another
// site the browser sends a cookie back only if it is SameSite=None and
// Secure, and CHIPS keeps it to that site (Partitioned), so one site's
// embed cannot follow the responder to another's. Outside a frame it is
// SameSite=Lax. The responder cookie (section 16) is made with it; its name,
// value, path and lifetime are the caller's.
func FrameCookie(r *http.Request, c *http.Cookie) *http.Cookie {
	c.HttpOnly = true
	if InFrame(r) {
		c.SameSite, c.Secure, c.Partitioned = http.SameSiteNoneMode, true, true
		return c
	}
	c.SameSite = http.SameSiteLaxMode
	c.Secure = c.Secure || r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
	return c
}
