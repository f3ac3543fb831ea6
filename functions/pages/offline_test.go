package pages_test

import (
	"strings"
	"testing"
)

// TestServiceWorkerRoute: the group serves /s/sw.js (with or without a
// final slash) as JavaScript, beside the survey pages under /s/; a survey
// page loads offline.js, which registers it.
func TestServiceWorkerRoute(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	for _, path := range []string{"/s/sw.js", "/s/sw.js/"} {
		r := f.get(path)
		if r.code != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/javascript") || !strings.Contains(r.body, `addEventListener("fetch"`) {
			t.Errorf("GET %s: %d %s", path, r.code, r.header.Get("Content-Type"))
		}
	}
	if page := f.get("/s/" + f.sv.URLSlug + "/"); page.code != 200 || !strings.Contains(page.body, "/assets/offline.") {
		t.Errorf("the survey page (%d) does not load offline.js", page.code)
	}
}
