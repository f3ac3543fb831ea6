package variables_test

import (
	"fmt"
	"net/url"
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

	// The request of issue 10: 5,000 items of 500 + 500 characters (about
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
