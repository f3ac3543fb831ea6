package settings_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

func TestCodesAdd(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree) // codes are not plan-gated
	sid := f.newSurvey(t, "Codes")
	empty := f.codePage(t, sid, "")
	if !jsonEqual([]byte(mustJSON(t, empty)), `{"count": 0, "next": null, "previous": null, "results": []}`) {
		t.Errorf("no codes: %v", empty)
	}
	r := f.do("POST", codesPath(sid), `[" b ", "a", "b", "A", "a", "کد۱", "\tZ9\n"]`)
	check(t, "POST array", r, 201, `["b", "a", "A", "کد۱", "Z9"]`)
	if n := f.count(t, sid); n != 5 {
		t.Errorf("count after the first POST: %d, want 5", n)
	}
	r = f.do("POST", codesPath(sid), `{"codes": ["c", "a", " c ", "A"]}`)
	check(t, "POST object", r, 201, `["c", "a", "A"]`)
	if n := f.count(t, sid); n != 6 {
		t.Errorf("count after the second POST (existing codes counted again?): %d, want 6", n)
	}
	want := []string{"A", "Z9", "a", "b", "c", "کد۱"}
	if got := f.allCodes(t, sid); !slices.Equal(got, want) {
		t.Errorf("codes %q, want %q", got, want)
	}
	// 100 characters after trimming, counted in code points.
	long := strings.Repeat("ک", 100)
	check(t, "100 characters", f.do("POST", codesPath(sid), mustJSON(t, []string{"  " + long + "  "})), 201, []string{long})
	check(t, "same again", f.do("POST", codesPath(sid), mustJSON(t, []string{long})), 201, []string{long})
	if n := f.count(t, sid); n != 7 {
		t.Errorf("count: %d, want 7", n)
	}
	body := `["d"]`
	check(t, "charset", serve(f.h, "POST", codesPath(sid), f.key, "application/json; charset=utf-8", &body), 201, `["d"]`)
	check(t, "no content type", serve(f.h, "POST", codesPath(sid), f.key, "", &body), 415, `{"detail":"Unsupported media type \"\" in request."}`)
	if n := f.count(t, sid); n != 8 {
		t.Errorf("count: %d, want 8", n)
	}
}

func TestCodesPagination(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Pages")
	prefixes := []string{"Alpha", "alpha", "7", "کد", "zeta", "Zeta", "00", "بتا", "Äpfel", "_", "~", "9z"}
	codes := make([]string, 1100)
	for i := range codes {
		codes[i] = fmt.Sprintf("%s-%04d", prefixes[i%len(prefixes)], (i*7919)%10000)
	}
	// 100 through the API, the other 1000 straight into the table: the
	// emulator's transactions slow down with every item already there.
	r := f.do("POST", codesPath(sid), mustJSON(t, codes[:100]))
	check(t, "POST 100", r, 201, codes[:100])
	testenv.SeedCodes(t, f.st, sid, codes[100:])
	sorted := slices.Sorted(slices.Values(codes)) // byte order
	base := "http://example.com" + codesPath(sid)

	page := func(query string, results []string, next, prev any) {
		t.Helper()
		r := f.do("GET", codesPath(sid)+query, "")
		want := map[string]any{"count": 1100, "next": next, "previous": prev, "results": results}
		check(t, "GET codes"+query, r, 200, want)
		t.Logf("GET codes%s: %d DynamoDB calls %v", query, r.calls.DynamoDB(), r.calls.Ops())
	}
	page("", sorted[:500], base+"?page=2", nil)
	page("?page=1", sorted[:500], base+"?page=2", nil)
	page("?page=2", sorted[500:1000], base+"?page=3", base)
	page("?page=3", sorted[1000:], nil, base+"?page=2")
	page("?page_size=300&page=2", sorted[300:600], base+"?page=3&page_size=300", base+"?page_size=300")
	page("?page_size=300&page=4", sorted[900:], nil, base+"?page=3&page_size=300")
	page("?page_size=5000", sorted, nil, nil)
	page("?page_size=1100", sorted, nil, nil)
	page("?page_size=1099&page=2", sorted[1099:], nil, base+"?page_size=1099")
	page("?page_size=1", sorted[:1], base+"?page=2&page_size=1", nil)
	page("?page_size=1&page=1100", sorted[1099:], nil, base+"?page=1099&page_size=1")

	for _, q := range []string{"?page=4", "?page=1000000", "?page_size=300&page=5", "?page_size=1&page=1101", "?page=0",
		"?page=-1", "?page=abc", "?page=1.5", "?page=", "?page=%20"} {
		check(t, "GET codes"+q, f.do("GET", codesPath(sid)+q, ""), 404, invalidPage)
	}
	for _, q := range []string{"?page_size=0", "?page_size=abc", "?page_size=-5", "?page_size=100000", "?page_size=5001", "?page_size=1.5"} {
		fieldError(t, "GET codes"+q, f.do("GET", codesPath(sid)+q, ""), "page_size", "")
	}
	// An empty survey has page 1 only.
	other := f.newSurvey(t, "No codes")
	check(t, "empty page 1", f.do("GET", codesPath(other), ""), 200, `{"count": 0, "next": null, "previous": null, "results": []}`)
	check(t, "empty page 2", f.do("GET", codesPath(other)+"?page=2", ""), 404, invalidPage)
}

// TestCodesPostErrors: every invalid upload is refused whole: nothing of it
// is written.
func TestCodesPostErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Bad codes")
	check(t, "seed", f.do("POST", codesPath(sid), `["keep"]`), 201, `["keep"]`)
	many := make([]string, 5001)
	for i := range many {
		many[i] = fmt.Sprintf("fresh-%d", i)
	}
	long := strings.Repeat("a", 101)
	cases := []struct {
		name, body string
		index      string // the item an error is keyed by, if any
	}{
		{"empty list", `[]`, ""},
		{"empty codes", `{"codes": []}`, ""},
		{"no codes key", `{}`, ""},
		{"codes a string", `{"codes": "x"}`, ""},
		{"codes null", `{"codes": null}`, ""},
		{"a string", `"fresh"`, ""},
		{"a number", `5`, ""},
		{"null", `null`, ""},
		{"5001 codes", mustJSON(t, many), ""},
		{"5001 codes in an object", mustJSON(t, map[string]any{"codes": many}), ""},
		{"101 characters", mustJSON(t, []string{"fresh", long}), "1"},
		{"101 Persian characters", mustJSON(t, []string{"fresh", strings.Repeat("ک", 101)}), "1"},
		{"newline", `["fresh", "a\nb"]`, "1"},
		{"carriage return", `["fresh", "a\rb"]`, "1"},
		{"tab inside", `["fresh", "a\tb"]`, "1"},
		{"bell", `["fresh", "a\u0007b"]`, "1"},
		{"NUL", `["fresh", "\u0000"]`, "1"},
		{"DEL", `["fresh", "a\u007fb"]`, "1"},
		{"C1 control", `["fresh", "a\u0085b"]`, "1"},
		{"bidi override", `["fresh", "ab\u202ec"]`, "1"},
		{"bidi isolate", `["fresh", "\u2066abc\u2069"]`, "1"},
		{"left-to-right mark", `["fresh", "abc\u200e"]`, "1"},
		{"zero-width space", `["fresh", "a\u200bb"]`, "1"},
		{"zero-width joiner", `["fresh", "a\u200db"]`, "1"},
		{"byte order mark", `["fresh", "\ufeffabc"]`, "1"},
		{"non-string item", `["fresh", 5]`, "1"},
		{"null item", `["fresh", null]`, "1"},
		{"list item", `["fresh", ["x"]]`, "1"},
		{"blank item", `["fresh", ""]`, "1"},
		{"spaces item", `["fresh", "   "]`, "1"},
		{"bad item in an object", `{"codes": ["fresh", 5]}`, "1"},
		{"not JSON", `["fresh"`, ""},
	}
	for _, c := range cases {
		r := f.do("POST", codesPath(sid), c.body)
		if r.code != 400 {
			t.Errorf("%s: %v, want 400", c.name, r)
			continue
		}
		if c.index != "" {
			m := decodeMap(t, r.body)
			found := false
			for _, v := range m {
				if nested, ok := v.(map[string]any); ok && nested[c.index] != nil && len(nested) == 1 {
					found = true
				}
			}
			if !found || len(m) != 1 {
				t.Errorf("%s: body %s, want an error keyed by item %s", c.name, r.body, c.index)
			}
		}
	}
	check(t, "bidi message", f.do("POST", codesPath(sid), `["ab\u202ec"]`), 400,
		`{"non_field_errors":{"0":["A code may not contain invisible or direction-changing characters."]}}`)
	check(t, "no body", f.do("POST", codesPath(sid), ""), 400, nil)
	body := `["fresh"]`
	check(t, "text/plain", serve(f.h, "POST", codesPath(sid), f.key, "text/plain", &body), 415, textPlain)
	if n := f.count(t, sid); n != 1 {
		t.Errorf("count after the refusals: %d, want 1", n)
	}
	if got := f.allCodes(t, sid); !slices.Equal(got, []string{"keep"}) {
		t.Errorf("codes after the refusals: %q", got)
	}
}

func TestCodesDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Delete codes")
	check(t, "seed", f.do("POST", codesPath(sid), `["a", "b", "c", "d", "e", "f"]`), 201, nil)
	steps := []struct {
		body string
		want []string
	}{
		{`["a", "unknown", "b"]`, []string{"c", "d", "e", "f"}},
		{`[]`, []string{"c", "d", "e", "f"}},
		{`{"codes": []}`, []string{"c", "d", "e", "f"}},
		{`["d", "d", " d "]`, []string{"c", "e", "f"}},
		{`{"codes": ["c", "nope"]}`, []string{"e", "f"}},
		{`["a", "b"]`, []string{"e", "f"}},
	}
	for _, s := range steps {
		r := f.do("DELETE", codesPath(sid), s.body)
		check(t, "DELETE "+s.body, r, 204, nil)
		if len(r.body) != 0 {
			t.Errorf("DELETE %s: 204 with a body %q", s.body, r.body)
		}
		if n := f.count(t, sid); n != len(s.want) {
			t.Errorf("count after DELETE %s: %d, want %d", s.body, n, len(s.want))
		}
		if got := f.allCodes(t, sid); !slices.Equal(got, s.want) {
			t.Errorf("codes after DELETE %s: %q, want %q", s.body, got, s.want)
		}
	}
	// Invalid bodies delete nothing.
	body := `["e"]`
	check(t, "text/plain", serve(f.h, "DELETE", codesPath(sid), f.key, "text/plain", &body), 415, textPlain)
	for _, b := range []string{`[5]`, `["e", "a\nb"]`, `{"codes": "e"}`, `"e"`, `[`, `null`, `   `} {
		check(t, "DELETE "+b, f.do("DELETE", codesPath(sid), b), 400, nil)
	}
	if got := f.allCodes(t, sid); !slices.Equal(got, []string{"e", "f"}) {
		t.Errorf("codes after invalid DELETEs: %q", got)
	}
	// No body at all: every code goes.
	check(t, "POST more", f.do("POST", codesPath(sid), `["g", "h", "i"]`), 201, nil)
	r := f.do("DELETE", codesPath(sid), "")
	check(t, "DELETE with no body", r, 204, nil)
	t.Logf("DELETE every code (5 codes): %d DynamoDB calls %v", r.calls.DynamoDB(), r.calls.Ops())
	check(t, "codes after DELETE with no body", f.do("GET", codesPath(sid), ""), 200, `{"count": 0, "next": null, "previous": null, "results": []}`)
	check(t, "DELETE with no body again", f.do("DELETE", codesPath(sid), ""), 204, nil)
	check(t, "POST after clearing", f.do("POST", codesPath(sid), `["e", "z"]`), 201, `["e", "z"]`)
	if n := f.count(t, sid); n != 2 {
		t.Errorf("count after clearing and adding 2: %d", n)
	}
}

// TestCodes5000: the largest upload, over 1 MiB of body, in one request.
// Most of its codes are put in the table first (testenv.SeedCodes): the
// emulator copies the whole table for every action of a transaction, so
// 5,000 new codes would take minutes there (the benchmark measures them).
func TestCodes5000(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "5000 codes")
	codes := make([]string, 5000)
	for i := range codes {
		// 100 code points, 3 bytes each but the 5 digits: ~1.45 MB of body.
		codes[i] = fmt.Sprintf("%05d", i) + strings.Repeat("€", 95)
	}
	body := mustJSON(t, codes)
	if len(body) <= 1<<20 {
		t.Fatalf("body of %d bytes is not over 1 MiB", len(body))
	}
	const fresh = 5 // the last 5 codes of the request are new
	testenv.SeedCodes(t, f.st, sid, codes[:len(codes)-fresh])
	start := time.Now()
	r := f.do("POST", codesPath(sid), body)
	wall := time.Since(start)
	check(t, "POST 5000", r, 201, codes)
	t.Logf("POST 5000 codes, %d new (%d bytes): %v wall, %d DynamoDB calls %v", fresh, len(body), wall, r.calls.DynamoDB(), r.calls.Ops())
	// One count read, a check of each of the 52 chunks (97 codes a
	// transaction: DynamoDB's 100 actions less the count's, the activity
	// entry's and a member's share check), one transaction.
	if ops := r.calls.Ops(); ops["DynamoDB.BatchGetItem"] != 53 || ops["DynamoDB.TransactWriteItems"] != 1 {
		t.Errorf("POST 5000 codes, %d new: calls %v, want 53 BatchGetItem and 1 TransactWriteItems", fresh, ops)
	}
	if n := f.count(t, sid); n != 5000 {
		t.Errorf("count: %d, want 5000", n)
	}
	p := f.do("GET", codesPath(sid)+"?page_size=5000", "")
	if p.code != 200 {
		t.Fatalf("GET 5000: %v", p)
	}
	if got := strs(t, decodeMap(t, p.body)["results"]); !slices.Equal(got, slices.Sorted(slices.Values(codes))) {
		t.Errorf("GET page_size=5000: %d codes, not the 5000 in byte order", len(got))
	}
	t.Logf("GET page_size=5000: %d DynamoDB calls %v", p.calls.DynamoDB(), p.calls.Ops())

	start = time.Now()
	r = f.do("POST", codesPath(sid), body)
	t.Logf("POST the same 5000 again: %v wall, %d DynamoDB calls %v", time.Since(start), r.calls.DynamoDB(), r.calls.Ops())
	check(t, "POST the same 5000", r, 201, codes)
	if n := r.calls.Ops()["DynamoDB.TransactWriteItems"]; n != 0 {
		t.Errorf("POST the same 5000 again: %d transactions, want none", n)
	}
	if n := f.count(t, sid); n != 5000 {
		t.Errorf("count after re-uploading the same codes: %d, want 5000", n)
	}
	check(t, "5001", f.do("POST", codesPath(sid), mustJSON(t, append(slices.Clone(codes), "one more"))), 400, nil)
	if n := f.count(t, sid); n != 5000 {
		t.Errorf("count after 5001: %d", n)
	}
	check(t, "DELETE the new codes", f.do("DELETE", codesPath(sid), mustJSON(t, codes[len(codes)-fresh:])), 204, nil)
	if n := f.count(t, sid); n != 5000-fresh {
		t.Errorf("count after DELETE: %d, want %d", n, 5000-fresh)
	}
}
