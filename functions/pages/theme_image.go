package pages

import (
	"errors"
	"net/http"

	"surveyservice/shared/api"
	"surveyservice/shared/backgrounds"
)

// handleThemeImage serves a size of a theme's background image (contract
// section 22: from MEDIA_URL, never a presigned URL) from the uploads
// bucket. Its name holds the theme, the image and the width, and a new
// image is a new name, so every answer is cached for a year. A name the
// service does not make, or an image removed, answers 404; a failing
// bucket 503, which nothing caches.
func handleThemeImage(media Media) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		if _, ok := backgrounds.MediaKey(name); !ok || media == nil {
			writeNotFound(w, r)
			return
		}
		body, err := media.Media(r.Context(), name)
		if errors.Is(err, backgrounds.ErrNoObject) {
			writeNotFound(w, r)
			return
		}
		if err != nil {
			api.Logger(r.Context()).Error("theme image", "name", name, "err", err.Error())
			w.Header().Set("Retry-After", "5")
			http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
			return
		}
		writeFile(w, r, "image/webp", backgrounds.CacheControl, "default-src 'none'", body)
	})
}

// phoneImageCSS lets a phone fetch a smaller size of a background the
// service made (its url is the 1920 px one): 640 px wide at 1x, 1280 at
// 2x and 3x, where the screen is at most 640 CSS px wide. The plain url
// first is for browsers without image-set. Another address: nothing.
func phoneImageCSS(url string) string {
	small, medium := backgrounds.SizeURL(url, 640), backgrounds.SizeURL(url, 1280)
	if small == "" {
		return ""
	}
	return `@media(max-width:640px){body::before{background-image:url("` + medium + `");background-image:image-set(url("` + small +
		`") 1x,url("` + medium + `") 2x)}}`
}
