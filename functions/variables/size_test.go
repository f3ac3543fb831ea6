package variables_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
)

// item is one personalised links item with the variables city and vip
// (both strings) holding l characters between them.
func item(l int) (json string, p links.Payload) {
	city := strings.Repeat("c", min(l, 500))
	vip := strings.Repeat("v", l-len(city))
	return `{"city":"` + city + `","vip":"` + vip + `"}`, links.Payload{Values: []links.Value{
		{Name: "city", Kind: links.KindString, Str: city}, {Name: "vip", Kind: links.KindString, Str: vip},
	}}
}

// urlLen is the bytes one URL of l characters takes in the answer (its
// comma included), from the token format: links.TokenLen, itself checked
// against real tokens.
func urlLen(prefix string, l int) int {
	_, p := item(l)
	return len(prefix) + links.TokenLen(p) + 1 + 1
}

// linksRequest is the body of a request of items of these lengths and the
// exact size of its answer.
func linksRequest(prefix string, lengths []int) (body string, answer int) {
	var b strings.Builder
	b.WriteString(`{"values":[`)
	answer = len(`{"urls":[]}`) - 1
	for i, l := range lengths {
		if i > 0 {
			b.WriteByte(',')
		}
		js, _ := item(l)
		b.WriteString(js)
		answer += urlLen(prefix, l)
	}
	b.WriteString(`]}`)
	return b.String(), answer
}

// TestLinksAnswerFitsLambda: the largest request the personalised links
// route accepts answers at most api.MaxAnswer bytes, exactly as computed;
// the next larger one (one more character) is refused with 400 before any
// link is sealed or any key fetched.
func TestLinksAnswerFitsLambda(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "Big")
	prefix := `"` + surveyURL + "/s/" + url.PathEscape(sv.URLSlug) + "/?qs="
	const n = maxLinks

	// The longest values every item can have, then items grown one
	// character at a time while the answer fits: the first growth that does
	// not fit is the smallest refused request.
	base := len(`{"urls":[]}`) - 1
	l := 1
	for base+n*urlLen(prefix, l+1) <= api.MaxAnswer {
		l++
	}
	lengths := make([]int, n)
	size := base + n*urlLen(prefix, l)
	for i := range lengths {
		lengths[i] = l
	}
	grown := 0
	for ; ; grown++ {
		delta := urlLen(prefix, l+1) - urlLen(prefix, l)
		if size+delta > api.MaxAnswer {
			break
		}
		lengths[grown]++
		size += delta
	}
	acceptedBody, acceptedSize := linksRequest(prefix, lengths)
	lengths[grown]++
	refusedBody, refusedSize := linksRequest(prefix, lengths)
	t.Logf("largest accepted: %d items of %d characters (%d of them %d): request %d bytes, answer %d bytes (bound %d)",
		n, l, grown, l+1, len(acceptedBody), acceptedSize, api.MaxAnswer)

	r := f.do(t, "POST", hashesPath(sv.ID), acceptedBody)
	if r.code != 200 {
		t.Fatalf("largest accepted: %d %.300s", r.code, r.body)
	}
	if len(r.body) != acceptedSize || len(r.body) > api.MaxAnswer {
		t.Errorf("largest accepted: answered %d bytes, computed %d, bound %d", len(r.body), acceptedSize, api.MaxAnswer)
	}
	if slack := api.MaxAnswer - len(r.body); slack > 2 {
		t.Errorf("the bound is not tight: %d bytes left under it", slack)
	}
	tokensOf(t, sv, r.body, n)

	// A cold container: refusing must not cost a KMS call or a write.
	g := f.withHandler(t)
	r = g.do(t, "POST", hashesPath(sv.ID), refusedBody)
	want := fmt.Sprintf(`{"values":["These links would take %s, more than the 5 MiB an answer may hold; send fewer items or shorter values."]}`,
		api.SizeName(int64(refusedSize)))
	expect(t, fmt.Sprintf("smallest refused (%d bytes of answer, %d of request)", refusedSize, len(refusedBody)), r, 400, want)
	if r.kms != 0 || r.dynamo != 1 {
		t.Errorf("the refusal made %d KMS and %d DynamoDB calls (%v), want 0 and the one read", r.kms, r.dynamo, r.ops)
	}

	// A request once seen: 5,000 items of 500 + 500 characters (about
	// 5 MB in) used to answer over 6 MiB.
	full := make([]int, n)
	for i := range full {
		full[i] = 1000
	}
	body, size := linksRequest(prefix, full)
	r = g.do(t, "POST", hashesPath(sv.ID), body)
	expect(t, fmt.Sprintf("5,000 items of 1,000 characters (%d bytes in, %d out)", len(body), size), r, 400,
		fmt.Sprintf(`{"values":["These links would take %s, more than the 5 MiB an answer may hold; send fewer items or shorter values."]}`, api.SizeName(int64(size))))
}

// TestErrorAnswersFit: the 400s of bad requests fit an answer too. Errors
// echo the keys they are about, so bad bodies used to answer many times
// their size: 6 MiB of short unknown keys made 21 MB of errors, a 1 MiB
// array of {} 29 MB.
func TestErrorAnswersFit(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "Errors") // city, age, vip

	// 5,000 items of four unknown keys of 100 characters (as many keys as
	// an item may have, as long as a variable's name may be).
	var b strings.Builder
	b.WriteString(`{"values":[`)
	key := func(c byte, i int) string { return strings.Repeat(string(c), 96) + fmt.Sprintf("%04d", i) }
	items := maxLinks
	for i := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{%q:1,%q:1,%q:1,%q:1}`, key('a', i), key('b', i), key('c', i), key('d', i))
	}
	b.WriteString(`]}`)
	body := b.String()
	r := f.do(t, "POST", hashesPath(sv.ID), body)
	if r.code != 400 || len(r.body) > 1<<20+64<<10 {
		t.Fatalf("%d items of unknown keys (%d bytes): %d, %d bytes", items, len(body), r.code, len(r.body))
	}
	var got struct {
		Values map[string]map[string][]string `json:"values"`
		Note   []string                       `json:"non_field_errors"`
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || len(got.Values) == 0 || len(got.Note) != 1 ||
		!strings.HasPrefix(got.Note[0], fmt.Sprintf("%d items are invalid; the errors of the first %d are shown.", items, len(got.Values))) {
		t.Errorf("answer: %v %.300s", err, r.body)
	}
	for i := range len(got.Values) {
		if got.Values[strconv.Itoa(i)][key('a', i)][0] != "Unknown variable." {
			t.Fatalf("item %d: %v (the first items' errors are shown)", i, got.Values[strconv.Itoa(i)])
		}
	}
	t.Logf("%d items of unknown keys, %d bytes: 400 of %d bytes, %d items' errors shown", items, len(body), len(r.body), len(got.Values))

	// One item with more keys than the survey has variables, and keys too
	// long to be a variable's name: neither is echoed.
	long := strings.Repeat("k", 5000)
	// The unknown keys are named, the first five of them.
	expect(t, "an item of five keys", f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"city":"x"},{"e":1,"b":1,"c":1,"d":1,"a":1}]}`), 400,
		`{"values":{"1":{"a":["Unknown variable."],"b":["Unknown variable."],"c":["Unknown variable."],"d":["Unknown variable."],"e":["Unknown variable."]}}}`)
	expect(t, "an item of seven keys", f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"city":"x"}]}`), 400,
		`{"values":{"0":{"a":["Unknown variable."],"b":["Unknown variable."],"c":["Unknown variable."],"d":["Unknown variable."],"e":["Unknown variable."],`+
			`"non_field_errors":["1 more unknown variable is not shown."]}}}`)
	expect(t, "keys of 5,000 characters", f.do(t, "POST", hashesPath(sv.ID), `{"values":[{"`+long+`1":1,"`+long+`2":1,"town":1}]}`), 400,
		`{"values":{"0":{"non_field_errors":["Unknown variable (a key of more than 100 characters)."],"town":["Unknown variable."]}}}`)

	// Variables: an array longer than a survey can hold is refused whole.
	many := "[" + strings.TrimSuffix(strings.Repeat("{},", (api.MaxBody-2)/3), ",") + "]"
	expect(t, "a 1 MiB array of {}", f.do(t, "POST", listPath(sv.ID), many), 400,
		`{"non_field_errors":["Ensure this field has no more than 100 elements."]}`)
	hundred := "[" + strings.TrimSuffix(strings.Repeat("{},", 100), ",") + "]"
	r = f.do(t, "POST", listPath(sv.ID), hundred)
	if r.code != 400 || !strings.HasPrefix(r.body, `[{"name":["This field is required."]`) {
		t.Errorf("100 items of {}: %d %.200s", r.code, r.body)
	}
}
