package backgrounds_test

import (
	"strconv"
	"strings"
	"testing"

	"surveyservice/shared/backgrounds"
)

func TestNames(t *testing.T) {
	for i := 0; i < 1000; i++ {
		id := backgrounds.NewID()
		if n, ok := backgrounds.ParseUploadID(strconv.FormatInt(id, 10)); !ok || n != id || id >= 1<<53 || id < 1 {
			t.Fatalf("NewID %d parses to %d %v", id, n, ok)
		}
	}
	for _, c := range []struct {
		in string
		ok bool
	}{{"12", true}, {"", false}, {"0", false}, {"-3", false}, {"+3", false}, {"1e3", false}, {"9007199254740992", false}, {"12/../3", false}, {" 12", false}} {
		if _, ok := backgrounds.ParseUploadID(c.in); ok != c.ok {
			t.Errorf("ParseUploadID(%q) = %v", c.in, ok)
		}
	}
	bi := backgrounds.Image(120, 77)
	if bi.URL != "/media/themes/images/120-77-1920.webp" || bi.ThumbnailURL != "/media/themes/images/120-77-320.webp" || bi.ID != 77 {
		t.Errorf("Image: %+v", bi)
	}
	if got := backgrounds.SizeURL("https://m.example"+bi.URL, 640); got != "https://m.example/media/themes/images/120-77-640.webp" {
		t.Errorf("SizeURL: %q", got)
	}
	for _, other := range []string{"/assets/sea.svg", "https://elsewhere.example/a-1920.webp"} {
		if got := backgrounds.SizeURL(other, 640); got != "" {
			t.Errorf("SizeURL(%q) = %q", other, got)
		}
	}
	for i, k := range backgrounds.MediaKeys(120, 77) {
		name := strings.TrimPrefix(k, backgrounds.MediaPrefix)
		if key, ok := backgrounds.MediaKey(name); !ok || key != k || !strings.HasSuffix(k, "-"+strconv.Itoa(backgrounds.Widths[i])+".webp") {
			t.Errorf("MediaKey(%q) = %q %v", name, key, ok)
		}
	}
	for _, bad := range []string{"120-77-1000.webp", "120-77-640.png", "0-77-640.webp", "../120-77-640.webp", "120-77-640.webp/x", ""} {
		if _, ok := backgrounds.MediaKey(bad); ok {
			t.Errorf("MediaKey(%q) accepted", bad)
		}
	}
}

// FuzzNames: an upload id or a served file name from a request never
// names an object outside the theme's prefixes.
func FuzzNames(f *testing.F) {
	f.Add("120-77-640.webp")
	f.Add("9007199254740991")
	f.Add("../../x")
	f.Fuzz(func(t *testing.T, s string) {
		if key, ok := backgrounds.MediaKey(s); ok && (!strings.HasPrefix(key, backgrounds.MediaPrefix) || strings.Contains(key, "..") || strings.Count(key, "/") != 2) {
			t.Fatalf("MediaKey(%q) = %q", s, key)
		}
		if n, ok := backgrounds.ParseUploadID(s); ok {
			if k := backgrounds.UploadKey(5, n); strings.Count(k, "/") != 3 || strconv.FormatInt(n, 10) != strings.TrimLeft(s, "0") {
				t.Fatalf("ParseUploadID(%q) = %d, key %q", s, n, k)
			}
		}
	})
}
