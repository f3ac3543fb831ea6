package settings_test

import (
	"testing"

	"surveyservice/shared/survey"
)

// TestEmbedOrigins: embed_origins (contract section 17) is ["*"] until set;
// it takes 1 to 20 origins (normalized as browsers serialize them) or "*"
// alone, null sets it back to ["*"], and a bad list answers 400 naming the
// item, changing nothing.
func TestEmbedOrigins(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Embedded")
	if got := f.get(t, sid)["embed_origins"]; !jsonEqual([]byte(mustJSON(t, got)), []any{"*"}) {
		t.Fatalf("default embed_origins %v, want [\"*\"]", got)
	}
	ok := f.patch(t, sid, `{"embed_origins":["https://Example.COM","https://shop.example.com:8443/","http://127.0.0.1:8080","https://example.com:443","http://localhost:3000"]}`)
	want := []any{"https://example.com", "https://shop.example.com:8443", "http://127.0.0.1:8080", "http://localhost:3000"}
	if ok.code != 200 || !jsonEqual([]byte(mustJSON(t, decodeMap(t, ok.body)["embed_origins"])), want) {
		t.Fatalf("PATCH: %v", ok)
	}
	if got := f.get(t, sid)["embed_origins"]; !jsonEqual([]byte(mustJSON(t, got)), want) {
		t.Fatalf("embed_origins read back %v, want %v", got, want)
	}
	if c := f.coll(t, sid); len(c.Settings.Embedders()) != 4 {
		t.Fatalf("stored %v", c.Settings.EmbedOrigins)
	}

	msg := survey.MsgEmbedOrigin
	twentyOne := make([]string, 21)
	for i := range twentyOne {
		twentyOne[i] = "https://a" + string(rune('a'+i)) + ".example.com"
	}
	for _, c := range []struct {
		name string
		body any
		want any
	}{
		{"not a list", `{"embed_origins":"https://example.com"}`, `{"embed_origins":["Expected a list of items but got type \"str\"."]}`},
		{"empty", `{"embed_origins":[]}`, `{"embed_origins":["Ensure this field has at least 1 elements."]}`},
		{"too many", map[string]any{"embed_origins": twentyOne}, `{"embed_origins":["Ensure this field has no more than 20 elements."]}`},
		{"star and more", `{"embed_origins":["*","https://example.com"]}`, map[string]any{"embed_origins": []string{survey.MsgEmbedAnyAlone}}},
		{"not a string", `{"embed_origins":["https://example.com",5]}`, `{"embed_origins":{"1":["Not a valid string."]}}`},
		{"bad items", `{"embed_origins":["https://example.com","http://example.com","https://example.com/path","https://*.example.com","ftp://x.org",` +
			`"https://x.org:99999","example.com","https://user@x.org","https://x.org?q"]}`,
			map[string]any{"embed_origins": map[string]any{"1": []string{msg}, "2": []string{msg}, "3": []string{msg}, "4": []string{msg},
				"5": []string{msg}, "6": []string{msg}, "7": []string{msg}, "8": []string{msg}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			check(t, c.name, f.patch(t, sid, c.body), 400, c.want)
			if got := f.get(t, sid)["embed_origins"]; !jsonEqual([]byte(mustJSON(t, got)), want) {
				t.Fatalf("a refused PATCH changed embed_origins to %v", got)
			}
		})
	}
	check(t, "star", f.patch(t, sid, `{"embed_origins":[" * "]}`), 200, nil)
	if got := f.get(t, sid)["embed_origins"]; !jsonEqual([]byte(mustJSON(t, got)), []any{"*"}) {
		t.Fatalf("embed_origins %v, want [\"*\"]", got)
	}
	check(t, "set", f.patch(t, sid, `{"embed_origins":["https://example.com"]}`), 200, nil)
	check(t, "null", f.patch(t, sid, `{"embed_origins":null}`), 200, nil)
	if got := f.get(t, sid)["embed_origins"]; !jsonEqual([]byte(mustJSON(t, got)), []any{"*"}) {
		t.Fatalf("after null: %v, want [\"*\"]", got)
	}
}

// FuzzEmbedOrigin: NormalizeOrigin never panics, and what it accepts it
// accepts again unchanged (a normalized origin is a fixed point).
func FuzzEmbedOrigin(f *testing.F) {
	for _, s := range []string{"https://example.com", "http://127.0.0.1:3000", "https://[::1]:8443", "https://xn--mgbh0fb.example", "https://مثال.ایران", "https://a.b/", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := survey.NormalizeOrigin(s)
		if !ok {
			return
		}
		again, ok := survey.NormalizeOrigin(n)
		if !ok || again != n {
			t.Fatalf("NormalizeOrigin(%q) = %q, then %q, %v", s, n, again, ok)
		}
	})
}
