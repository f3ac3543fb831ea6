package api

import (
	"context"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"surveyservice/shared/survey"
)

type rendering int

const (
	renderJSON rendering = iota
	renderHTML
)

// Renders and Parses are what every route offers, as OPTIONS reports them.
var (
	Renders = []string{"application/json", "text/html"}
	Parses  = []string{"application/json"}
)

type renderingKey struct{}

func renderingOf(r *http.Request) rendering {
	v, _ := r.Context().Value(renderingKey{}).(rendering)
	return v
}

func withRendering(r *http.Request, v rendering) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), renderingKey{}, v))
}

// negotiate picks the representation as DRF does, before any work is done:
// ?format=json or ?format=api decide; any other format is 404; otherwise the
// Accept header, where JSON wins ties (it is the first renderer) and text/html
// must be preferred to get the page. An Accept that neither satisfies is 406.
func negotiate(r *http.Request) (rendering, error) {
	if format, ok := formatParam(r.URL.RawQuery); ok {
		switch format {
		case "json":
			return renderJSON, nil
		case "api":
			return renderHTML, nil
		default:
			return renderJSON, survey.ErrNotFound
		}
	}
	accept := strings.Join(r.Header.Values("Accept"), ",")
	if strings.TrimSpace(accept) == "" {
		return renderJSON, nil
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
		return renderJSON, nil
	}
	sort.SliceStable(choices, func(i, j int) bool {
		if choices[i].q != choices[j].q {
			return choices[i].q > choices[j].q
		}
		return choices[i].specificity > choices[j].specificity
	})
	for _, c := range choices {
		switch c.media {
		case "application/json", "application/*", "*/*":
			return renderJSON, nil
		case "text/html", "text/*":
			return renderHTML, nil
		}
	}
	return renderJSON, survey.Errorf(survey.ENOTACCEPT, "Could not satisfy the request Accept header.")
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
