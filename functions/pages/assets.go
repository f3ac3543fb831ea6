package pages

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"path"
	"strings"
)

//go:embed web/app.css web/app.js web/boot.js web/favicon.svg web/logic.js web/logic_page.js web/responder.js
//go:embed web/captcha-worker.js web/uploads.js web/ranking.js web/sea.svg web/forest.svg web/offline.js web/partial.js
//go:embed web/sw.js web/signin.js web/signin.css web/report.css web/ranking.css web/docs.css
var web embed.FS

// asset is one embedded file, served under a name that carries its
// content's hash, so that it can be cached for a year.
type asset struct {
	name, contentType string
	body              []byte
}

// assets are the page's CSS and script by their hashed names; assetNames
// maps each plain name ("app.css") to its hashed one.
var assets, assetNames = withFonts(loadAssets("app.css", "app.js", "boot.js", "favicon.svg", "logic.js", "responder.js", "captcha-worker.js",
	"uploads.js", "ranking.js", "sea.svg", "forest.svg", "offline.js", "partial.js", "signin.js", "signin.css", "report.css", "ranking.css", "docs.css"))

// bundles are the assets served as one file of several sources, in
// order: the rules' evaluator (SurveyLogic) and the page's side of them
// (SurveyPageLogic) always load together, so in one request.
var bundles = map[string][]string{"logic.js": {"logic.js", "logic_page.js"}}

func loadAssets(names ...string) (map[string]asset, map[string]string) {
	byHashed, byPlain := map[string]asset{}, map[string]string{}
	for _, n := range names {
		var b []byte
		srcs, ok := bundles[n]
		if !ok {
			srcs = []string{n}
		}
		for _, src := range srcs {
			part, err := web.ReadFile("web/" + src)
			if err != nil {
				panic(err) // embedded: a build error
			}
			b = append(b, part...)
		}
		switch path.Ext(n) {
		case ".js":
			b = minifyJS(b)
		case ".css":
			b = minifyCSS(b)
		}
		sum := sha256.Sum256(b)
		ext := path.Ext(n)
		hashed := strings.TrimSuffix(n, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		ct := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}[ext]
		byHashed[hashed] = asset{name: hashed, contentType: ct, body: b}
		byPlain[n] = "/assets/" + hashed
	}
	return byHashed, byPlain
}

// handleAsset serves an embedded asset by its hashed name: immutable, for
// a year. Any other name is 404.
func handleAsset() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := assets[r.PathValue("name")]
		if !ok {
			writeNotFound(w, r)
			return
		}
		writeFile(w, r, a.contentType, "public, max-age=31536000, immutable", "default-src 'none'", a.body)
	})
}

// writeFile answers a file the group serves as it is (an asset, the
// service worker, a documentation topic) with its type, caching and
// policy; HEAD gets the headers alone.
func writeFile(w http.ResponseWriter, r *http.Request, contentType, cacheControl, policy string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cacheControl)
	h.Set("Content-Security-Policy", policy)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// AssetPath is the path an embedded asset is served at ("sea.svg" gives
// "/assets/sea.<hash>.svg"), or "" for no asset: the demo survey's
// pictures use it.
func AssetPath(name string) string { return assetNames[name] }

// addAsset serves body under name with its content's hash, as loadAssets
// does for web/ (the theme's fonts add theirs).
func addAsset(byHashed map[string]asset, byPlain map[string]string, name, contentType string, body []byte) {
	sum := sha256.Sum256(body)
	ext := path.Ext(name)
	hashed := strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:6]) + ext
	byHashed[hashed] = asset{name: hashed, contentType: contentType, body: body}
	byPlain[name] = "/assets/" + hashed
}
