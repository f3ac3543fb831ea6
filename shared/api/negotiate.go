package api

import (
	"context"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"surveyservice/shared/survey"
)

type rendering int

const (
	renderJSON rendering = iota
	renderHTML
	// renderOwn is a route's own format (Route.Formats): the handler
	// writes it (Format names which); errors are still JSON.
	renderOwn
)

// Format is a representation a route offers beyond JSON and the browsable
// page, and writes itself: its ?format= name and its media type, which an
// Accept header may ask for too.
type Format struct {
	Name      string // "csv"
	MediaType string // "text/csv"
}

// Renders and Parses are what every route offers, as OPTIONS reports them.
var (
	Renders = []string{"application/json", "text/html"}
	Parses  = []string{"application/json"}
)

type renderingKey struct{}

// negotiated is what content negotiation chose for a request.
type negotiated struct {
	rendering rendering
	format    string // the route's own format, with renderOwn
}

func renderingOf(r *http.Request) rendering {
	v, _ := r.Context().Value(renderingKey{}).(negotiated)
	return v.rendering
}

func withRendering(r *http.Request, v negotiated) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), renderingKey{}, v))
}

// RequestedFormat is the route's own format the request negotiated (a
// Format's Name, as "csv"), or "" when it gets JSON or the browsable page.
func RequestedFormat(r *http.Request) string {
	v, _ := r.Context().Value(renderingKey{}).(negotiated)
	if v.rendering != renderOwn {
		return ""
	}
	return v.format
}

// negotiate picks the representation as DRF does, before any work is done:
// ?format=json or ?format=api decide, or the name of one of the route's own
// formats; any other format is 404; otherwise the Accept header, where JSON
// wins ties (it is the first renderer), text/html must be preferred to get
// the page, and a route's own media type must be named. An Accept that
// none satisfies is 406.
func negotiate(r *http.Request, own []Format) (negotiated, error) {
	jsonChoice := negotiated{rendering: renderJSON}
	if format, ok := formatParam(r.URL.RawQuery); ok {
		switch format {
		case "json":
			return jsonChoice, nil
		case "api":
			return negotiated{rendering: renderHTML}, nil
		}
		for _, f := range own {
			if format == f.Name {
				return negotiated{rendering: renderOwn, format: f.Name}, nil
			}
		}
		return jsonChoice, survey.ErrNotFound
	}
	accept := strings.Join(r.Header.Values("Accept"), ",")
	if strings.TrimSpace(accept) == "" {
		return jsonChoice, nil
	}
	type choice struct {
		q           float64
		specificity int
		media       string
	}
	var choices []choice
	for _, part := range strings.Split(accept, ",") {
		media, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if qs, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(qs, 64); err == nil && f >= 0 && f <= 1 {
				q = f
			}
		}
		if q == 0 {
			continue
		}
		spec := 2
		switch {
		case media == "*/*":
			spec = 0
		case strings.HasSuffix(media, "/*"):
			spec = 1
		}
		choices = append(choices, choice{q, spec, media})
	}
	if len(choices) == 0 {
		return jsonChoice, nil
	}
	sort.SliceStable(choices, func(i, j int) bool {
		if choices[i].q != choices[j].q {
			return choices[i].q > choices[j].q
		}
		return choices[i].specificity > choices[j].specificity
	})
	// Within the media types of one precedence (same q, same specificity)
	// the renderers' order decides, as in DRF: JSON, the page, the route's
	// own formats.
	for start := 0; start < len(choices); {
		end := start + 1
		for end < len(choices) && choices[end].q == choices[start].q && choices[end].specificity == choices[start].specificity {
			end++
		}
		group := choices[start:end]
		has := func(media ...string) bool {
			for _, c := range group {
				if slices.Contains(media, c.media) {
					return true
				}
			}
			return false
		}
		switch {
		case has("application/json", "application/*", "*/*"):
			return jsonChoice, nil
		case has("text/html", "text/*"):
			return negotiated{rendering: renderHTML}, nil
		}
		for _, f := range own {
			if has(f.MediaType) {
				return negotiated{rendering: renderOwn, format: f.Name}, nil
			}
		}
		start = end
	}
	return jsonChoice, survey.Errorf(survey.ENOTACCEPT, "Could not satisfy the request Accept header.")
}

// formatParam finds the first format parameter of a raw query. Unlike
// URL.Query it sees a pair whose escaping is broken (format=%zz), which must
// answer 404 like any other unknown format, not be dropped.
func formatParam(rawQuery string) (string, bool) {
	for _, pair := range strings.Split(rawQuery, "&") {
		k, v, _ := strings.Cut(pair, "=")
		if key, err := url.QueryUnescape(k); err != nil || key != "format" {
			continue
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			return "\x00invalid", true
		}
		return value, true
	}
	return "", false
}
