package templates

import (
	"net/http"

	"surveyservice/shared/api"
)

// handleDetail answers one template, its similar templates expanded. The
// slug arrives percent-encoded and is matched decoded.
func handleDetail(d Deps) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		t, err := d.Catalog.TemplateBySlug(r.Context(), r.PathValue("url_slug"))
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", cacheControl)
		api.Respond(w, api.WithNote(r, note(d)), http.StatusOK, t)
		return nil
	})
}

func note(d Deps) string {
	return "thumbnail_image paths that start with /media/ resolve against " + d.MediaURL +
		"; embedding_link points at the public survey on " + d.TemplatesURL + "."
}
