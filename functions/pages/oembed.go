package pages

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// ProviderName is the oEmbed provider_name.
//
// oEmbed 1.0 (https://oembed.com, contract section 17): a site that is
// given the address of a survey's page asks GET /api/oembed/?url=... and
// embeds the iframe it answers. The pages group serves it: it owns the
// page addresses, and the answer is one read of what the page reads.
const ProviderName = "Survey Service"

// The frame's size when the consumer sets no bounds: a phone-to-desktop
// column, and the page grows it further by its resize messages.
const (
	oembedWidth  = 640
	oembedHeight = 600
)

// oembedAnswer is the oEmbed 1.0 "rich" answer.
type oembedAnswer struct {
	Version      string `json:"version"`
	Type         string `json:"type"`
	ProviderName string `json:"provider_name"`
	ProviderURL  string `json:"provider_url"`
	Title        string `json:"title"`
	HTML         string `json:"html"`
	Width        int64  `json:"width"`
	Height       int64  `json:"height"`
}

// publishedURL is where survey pages are published: PUBLIC_SURVEY_URL,
// by default the API's own address (API_BASE_URL; contract section 14).
// Neither ever comes from the request's Host header (section 3).
func publishedURL(r *http.Request, cfg Config) string {
	if cfg.PublicURL != "" {
		return cfg.PublicURL
	}
	return api.BaseURL(r)
}

// pageURL is the published address of a survey's responder page, the one
// its share link shows.
func pageURL(r *http.Request, cfg Config, slug string) string {
	if cfg.SurveyBase != "" {
		return cfg.SurveyBase + "/s/" + url.PathEscape(slug) + "/"
	}
	return publishedURL(r, cfg) + "/s/" + url.PathEscape(slug) + "/"
}

// oembedLink is the discovery address of a survey's page: oEmbed on the
// API, asked about the page's published address, with the ?lang= the
// page was asked in (section 24: the embed's title is in that language).
func oembedLink(r *http.Request, cfg Config, slug string, pl pageLang) string {
	return api.BaseURL(r) + "/api/oembed/?" + url.Values{"url": {pl.action(pageURL(r, cfg, slug))}, "format": {"json"}}.Encode()
}

// surveySlugOf is the slug of a survey page address of this service,
// /s/<slug>/ (with or without the final slash, any query) under one of
// bases: PUBLIC_SURVEY_URL, where share and personalised links point, and
// the API's own address, and the account's subdomain or custom domain
// (the handler checks it is the survey's). Any other address answers "".
func surveySlugOf(raw string, bases ...string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil {
		return ""
	}
	for _, base := range bases {
		b, err := url.Parse(base)
		if base == "" || err != nil || !sameHost(u, b) {
			continue
		}
		rest, ok := strings.CutPrefix(u.Path, strings.TrimSuffix(b.Path, "/")+"/s/")
		if !ok {
			continue
		}
		slug := strings.TrimSuffix(rest, "/")
		if slug == "" || strings.Contains(slug, "/") {
			return ""
		}
		return slug
	}
	return ""
}

// sameHost reports whether two addresses name one host and port: case
// and a final dot aside, as DNS reads a name.
func sameHost(a, b *url.URL) bool {
	name := func(u *url.URL) string { return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".") }
	return name(a) == name(b) && a.Port() == b.Port()
}

// oembedBound reads maxwidth or maxheight: absent is no bound; a value
// that is not a positive integer answers 400 on it.
func oembedBound(r *http.Request, name string) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > 1<<20 {
		return 0, survey.FieldError(name, "A valid integer is required.")
	}
	return n, nil
}

// handleOEmbed answers oEmbed for a live survey's page: at the service's
// addresses, its account's subdomain or an active custom domain of its
// account (contract section 23); 404 for any other address (unknown,
// trashed, closed or stopped, another account's subdomain or domain, a
// pending or suspended domain), 501 for a format other than json, as
// oEmbed 1.0 says. It costs the slug's lookup (cached per container), a
// custom domain's (cached per container) and one Query, and counts no
// view. The iframe points where the service's links do (the subdomain or
// PUBLIC_SURVEY_URL), whichever address it was asked about.
func handleOEmbed(st Store, now func() time.Time, cfg Config) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		q := r.URL.Query()
		if api.RequestedFormat(r) == "xml" {
			return survey.Errorf(survey.ENOTIMPLEMENTED, "Only the json format is served.")
		}
		maxW, err := oembedBound(r, "maxwidth")
		if err != nil {
			return err
		}
		maxH, err := oembedBound(r, "maxheight")
		if err != nil {
			return err
		}
		raw := q.Get("url")
		if raw == "" {
			return survey.FieldError("url", "This field is required.")
		}
		onSub := cfg.Links.SubdomainBaseOf(raw)
		slug := surveySlugOf(raw, cfg.PublicURL, api.BaseURL(r), onSub)
		var domainAccount int64 // the account of the active custom domain raw is on
		if slug == "" {
			onDomain, aid, err := cfg.Links.CustomDomainOf(ctx, raw)
			if err != nil {
				return err
			}
			slug, domainAccount = surveySlugOf(raw, onDomain), aid
		}
		if slug == "" {
			return survey.ErrNotFound
		}
		sid, err := st.SurveyIDBySlug(ctx, slug)
		if err != nil {
			return err
		}
		c, err := st.PublicCollection(ctx, sid, false)
		if err != nil {
			return err
		}
		if !c.Survey.Active(now()) {
			return survey.ErrNotFound
		}
		cfg := cfg.forAccount(ctx, c.Survey.AccountID)
		if onSub != "" && cfg.SurveyBase != onSub || domainAccount != 0 && domainAccount != c.Survey.AccountID {
			return survey.ErrNotFound // another account's subdomain or domain, as its pages answer
		}
		width, height := int64(oembedWidth), int64(oembedHeight)
		if maxW > 0 && maxW < width {
			width = maxW
		}
		if maxH > 0 && maxH < height {
			height = maxH
		}
		src, query := pageURL(r, cfg, c.Survey.URLSlug), url.Values{}
		if u, err := url.Parse(raw); err == nil && u.RawQuery != "" {
			query = u.Query()
			src += "?" + query.Encode() // a personalised link keeps its ?qs=, an address in a language its ?lang=
		}
		// The title is the survey's name in the language the address
		// shows (section 24: its ?lang=, when one of the survey's; the
		// default's name where that language has none), as the frame does.
		def, _ := survey.LanguageCode(c.Survey.Language)
		lang, _ := survey.ChooseLanguage(c.Translations.All(def), query.Get("lang"), "")
		title, _ := c.Translations.Name(lang, def, c.Survey.Name)
		w.Header().Set("Cache-Control", "public, max-age=300")
		api.Respond(w, r, http.StatusOK, oembedAnswer{
			Version: "1.0", Type: "rich", ProviderName: ProviderName, ProviderURL: publishedURL(r, cfg) + "/",
			Title: title, Width: width, Height: height,
			HTML: embedSnippet(src, title, width, height),
		})
		return nil
	})
}

// embedSnippet is the iframe that embeds a survey's page: the snippet of
// docs/templates-and-embedding.md, which the page's script then resizes
// (survey:resize).
func embedSnippet(src, title string, width, height int64) string {
	return `<iframe src="` + string(text(src)) + `" title="` + string(text(title)) + `" width="` + strconv.FormatInt(width, 10) +
		`" height="` + strconv.FormatInt(height, 10) + `" style="border:0;max-width:100%" loading="lazy"></iframe>`
}
