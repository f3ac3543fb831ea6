package variables_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestResolve(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "Resolve")
	other := f.linkSurvey(t, "Other")

	t.Run("tampered", func(t *testing.T) {
		// Three lengths, so that the last character carries unused bits in
		// some of them.
		items := []string{`{"city":"a"}`, `{"city":"ab"}`, `{"city":"abc"}`}
		tokens := f.urls(t, sv, items)
		for i, tok := range tokens {
			f.resolves(t, "untouched", sv.URLSlug, tok, items[i])
			var opened []string
			for pos := range len(tok) {
				idx := strings.IndexByte(b64alphabet, tok[pos])
				for _, flip := range []int{1, 32} {
					alt := tok[:pos] + string(b64alphabet[idx^flip]) + tok[pos+1:]
					r := f.resolve(t, sv.URLSlug, alt)
					if r.code == 200 {
						opened = append(opened, fmt.Sprintf("position %d of %d (%q→%q)", pos, len(tok), tok[pos], b64alphabet[idx^flip]))
						continue
					}
					expect(t, fmt.Sprintf("token %d changed at %d", i, pos), r, 400, invalidLink)
				}
			}
			if len(opened) > 0 {
				t.Errorf("token %d (%d characters, %d bytes) still opens with one character changed at %s; "+
					"the contract says one changed character makes it invalid", i, len(tok), len(tok)*6/8, strings.Join(opened, ", "))
			}
		}
	})

	t.Run("truncated and garbage", func(t *testing.T) {
		tok := f.urls(t, sv, []string{`{"city":"Tehran","age":30}`})[0]
		bad := map[string]string{
			"last character cut": tok[:len(tok)-1],
			"two cut":            tok[:len(tok)-2],
			"half":               tok[:len(tok)/2],
			"four":               tok[:4],
			"header only":        tok[:7],
			"abc":                "abc",
			"empty":              "",
			"5 KB of A":          strings.Repeat("A", 5<<10),
			"5 KB token-like":    base64.RawURLEncoding.EncodeToString(append([]byte{1}, bytes.Repeat([]byte{7}, 3800)...)),
			"9 KB":               strings.Repeat("B", 9<<10),
			"standard base64":    strings.NewReplacer("-", "+", "_", "/").Replace(tok) + "+/",
			"padded":             tok + "==",
			"doubled":            tok + tok,
			"not base64":         "%%%%%%",
			"unicode":            "توکن‌نامعتبر",
			"unknown key id":     base64.RawURLEncoding.EncodeToString(append([]byte{1, 0xde, 0xad, 0xbe, 0xef}, bytes.Repeat([]byte{9}, 40)...)),
			"version 2":          versionChanged(t, tok),
		}
		for what, qs := range bad {
			expect(t, what, f.resolve(t, sv.URLSlug, qs), 400, invalidLink)
		}
		f.resolves(t, "the original after the others", sv.URLSlug, tok, `{"city":"Tehran","age":30}`)
	})

	t.Run("another survey's token", func(t *testing.T) {
		mine := f.urls(t, sv, []string{`{"city":"mine"}`})[0]
		theirs := f.urls(t, other, []string{`{"city":"theirs"}`})[0]
		expect(t, "other survey's token on this slug", f.resolve(t, sv.URLSlug, theirs), 400, invalidLink)
		expect(t, "this survey's token on the other slug", f.resolve(t, other.URLSlug, mine), 400, invalidLink)
		f.resolves(t, "own slug", sv.URLSlug, mine, `{"city":"mine"}`)
		f.resolves(t, "own slug", other.URLSlug, theirs, `{"city":"theirs"}`)
		// Another account's survey, too.
		o := newFixture(t)
		osv := o.linkSurvey(t, "Foreign")
		foreign := o.urls(t, osv, []string{`{"city":"foreign"}`})[0]
		expect(t, "another account's token", f.resolve(t, sv.URLSlug, foreign), 400, invalidLink)
	})

	t.Run("qs and slug", func(t *testing.T) {
		tok := f.urls(t, sv, []string{`{"city":"x"}`})[0]
		r := send(t, f.h, "GET", "/api/public/surveys/"+sv.URLSlug+"/variables/", "")
		expect(t, "missing qs", r, 400, qsRequired)
		r = send(t, f.h, "GET", "/api/public/surveys/"+sv.URLSlug+"/variables/?q="+tok, "")
		expect(t, "qs misspelt", r, 400, qsRequired)
		r = send(t, f.h, "GET", "/api/public/surveys/"+sv.URLSlug+"/variables/?qs", "")
		expect(t, "qs without a value", r, 400, invalidLink)
		expect(t, "unknown slug", f.resolve(t, "nosuchslug9", tok), 404, notFound)
		expect(t, "bad slug", f.resolve(t, "no such/slug", tok), 404, notFound)
		r = send(t, f.h, "GET", "/api/public/surveys/"+sv.URLSlug+"/variables?qs="+tok, "")
		if r.code != 200 {
			t.Errorf("without the final slash: %d %s", r.code, r.body)
		}
		r = send(t, f.h, "POST", valuesPath(sv.URLSlug, tok), "")
		if r.code != 405 {
			t.Errorf("POST on the values route: %d %s, want 405", r.code, r.body)
		}
	})

	t.Run("authorization ignored", func(t *testing.T) {
		tok := f.urls(t, sv, []string{`{"city":"public"}`})[0]
		for _, auth := range []string{"API-Key " + f.key, "API-Key nope", "API-Key", "Bearer abc", "Basic Zm9vOmJhcg==", ""} {
			r := f.resolve(t, sv.URLSlug, tok, "Authorization", auth)
			expect(t, "Authorization "+auth, r, 200, `{"values":{"city":"public"}}`)
		}
		expect(t, "bad link with a bad key", f.resolve(t, sv.URLSlug, "abc", "Authorization", "API-Key nope"), 400, invalidLink)
	})

	t.Run("is_unique", func(t *testing.T) {
		tokens := f.urls(t, sv, []string{`{"city":"once","age":1,"is_unique":true}`, `{"city":"many","is_unique":false}`, `{"city":"plain"}`})
		// Resolving a one-use link does not use it (contract 11 amends 8):
		// the response that carries it does.
		for i := range 3 {
			expect(t, fmt.Sprintf("resolve %d", i), f.resolve(t, sv.URLSlug, tokens[0]), 200, `{"values":{"city":"once","age":1}}`)
		}
		if r := f.respondWith(t, sv.URLSlug, tokens[0]); r.code != 201 {
			t.Fatalf("a response with the link: %d %s", r.code, r.body)
		}
		expect(t, "resolve after the response", f.resolve(t, sv.URLSlug, tokens[0]), 410, linkUsed)
		expect(t, "a second response", f.respondWith(t, sv.URLSlug, tokens[0]), 410, linkUsed)
		// A spent one-use link on another slug is still just invalid.
		expect(t, "spent link on another slug", f.resolve(t, other.URLSlug, tokens[0]), 400, invalidLink)
		for i := range 3 {
			if r := f.respondWith(t, sv.URLSlug, tokens[1+i%2]); r.code != 201 {
				t.Errorf("response %d with a reusable link: %d %s", i, r.code, r.body)
			}
			expect(t, fmt.Sprintf("is_unique false, use %d", i), f.resolve(t, sv.URLSlug, tokens[1]), 200, `{"values":{"city":"many"}}`)
			expect(t, fmt.Sprintf("plain, use %d", i), f.resolve(t, sv.URLSlug, tokens[2]), 200, `{"values":{"city":"plain"}}`)
		}
		// Another container sees the link as spent too.
		g := f.withHandler(t)
		expect(t, "second use on another container", g.resolve(t, sv.URLSlug, tokens[0]), 410, linkUsed)
	})

	t.Run("is_unique resolves race", func(t *testing.T) {
		// Racing resolves all answer: none of them uses the link (the
		// race between responses is the responders' tests').
		for round := range 2 {
			tok := f.urls(t, sv, []string{fmt.Sprintf(`{"city":"race %d","is_unique":true}`, round)})[0]
			const n = 10
			replies := make([]reply, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					replies[i] = f.resolve(t, sv.URLSlug, tok)
				}()
			}
			close(start)
			wg.Wait()
			var codes []int
			ok, gone := 0, 0
			for _, r := range replies {
				codes = append(codes, r.code)
				switch {
				case r.code == 200 && jsonEqual(r.body, fmt.Sprintf(`{"values":{"city":"race %d"}}`, round)):
					ok++
				case r.code == 410 && jsonEqual(r.body, linkUsed):
					gone++
				}
			}
			slices.Sort(codes)
			if ok != n || gone != 0 {
				t.Errorf("round %d: %d racing GETs answered %v; want %d 200", round, n, codes, n)
			}
		}
	})
}

// versionChanged is the token with its version byte made 2: a token of a
// format the service does not know.
func versionChanged(tb testing.TB, tok string) string {
	tb.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		tb.Fatal(err)
	}
	raw[0] = 2
	return base64.RawURLEncoding.EncodeToString(raw)
}

// TestHeadDoesNotUseALink: neither a HEAD (a link checker, a chat
// preview) nor a GET of a one-use link uses it up; a response does, and
// then both answer 410.
func TestHeadDoesNotUseALink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sv := f.linkSurvey(t, "Head")
	r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"Yazd","is_unique":true}]}`)
	if r.code != 200 {
		t.Fatalf("hashes: %d %s", r.code, r.body)
	}
	var out struct{ URLs []string }
	if err := json.Unmarshal([]byte(r.body), &out); err != nil || len(out.URLs) != 1 {
		t.Fatalf("urls: %v %s", err, r.body)
	}
	u, _ := url.Parse(out.URLs[0])
	path := "/api/public/surveys/" + sv.URLSlug + "/variables/?qs=" + u.Query().Get("qs")
	for i := range 2 {
		if h := f.do(t, "HEAD", path, ""); h.code != 200 {
			t.Fatalf("HEAD %d: %d", i, h.code)
		}
	}
	for i := range 2 {
		if g := f.do(t, "GET", path, ""); g.code != 200 {
			t.Fatalf("GET %d after HEADs: %d %s", i, g.code, g.body)
		}
	}
	if r := f.respondWith(t, sv.URLSlug, u.Query().Get("qs")); r.code != 201 {
		t.Fatalf("a response with the link: %d %s", r.code, r.body)
	}
	if g := f.do(t, "GET", path, ""); g.code != 410 {
		t.Fatalf("second GET: %d %s", g.code, g.body)
	}
	if h := f.do(t, "HEAD", path, ""); h.code != 410 {
		t.Fatalf("HEAD after use: %d", h.code)
	}
}
