package variables_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/survey"
)

func TestLinks(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "Links")

	t.Run("one and three", func(t *testing.T) {
		tokens := f.urls(t, sv, []string{`{"city":"Tehran","age":30,"vip":true}`})
		f.resolves(t, "one", sv.URLSlug, tokens[0], `{"city":"Tehran","age":30,"vip":true}`)

		items := []struct{ in, want string }{
			{`{"city":"شیراز","vip":false,"is_unique":false}`, `{"city":"شیراز","vip":false}`},
			{`{"vip":1.5,"city":7,"age":-12}`, `{"vip":1.5,"city":7,"age":-12}`},
			{`{}`, `{}`},
		}
		var in []string
		for _, it := range items {
			in = append(in, it.in)
		}
		tokens = f.urls(t, sv, in)
		for i, it := range items {
			f.resolves(t, fmt.Sprintf("item %d %s", i, it.in), sv.URLSlug, tokens[i], it.want)
		}
	})

	t.Run("value types are kept", func(t *testing.T) {
		items := []struct{ in, want string }{
			{`{"city":"","age":0}`, `{"city":"","age":0}`},
			{`{"city":"a \"quoted\" \\ \u00e9 \n line"}`, `{"city":"a \"quoted\" \\ é \n line"}`},
			{`{"vip":2.0}`, `{"vip":2.0}`},                           // a float stays a float for type 1
			{`{"vip":1e3,"city":-0.25}`, `{"vip":1e3,"city":-0.25}`}, // numbers keep their text
			{`{"vip":12345678901234567890}`, `{"vip":12345678901234567890}`},
			{`{"age":9007199254740993}`, `{"age":9007199254740993}`},
			{`{"age":2.0}`, `{"age":2}`}, // an integral number is an integer
			{`{"city":true,"vip":false}`, `{"city":true,"vip":false}`},
			{`{"city":"` + strings.Repeat("ш", 500) + `"}`, `{"city":"` + strings.Repeat("ш", 500) + `"}`},
		}
		var in []string
		for _, it := range items {
			in = append(in, it.in)
		}
		tokens := f.urls(t, sv, in)
		for i, it := range items {
			f.resolves(t, fmt.Sprintf("item %d %.60s", i, it.in), sv.URLSlug, tokens[i], it.want)
		}
	})

	t.Run("5000", func(t *testing.T) {
		items := make([]string, maxLinks)
		want := make([]string, maxLinks)
		for i := range items {
			items[i] = fmt.Sprintf(`{"city":"c-%d","age":%d,"vip":%t}`, i, i, i%2 == 0)
			want[i] = items[i]
		}
		start := time.Now()
		tokens := f.urls(t, sv, items)
		t.Logf("5000 links minted in %v", time.Since(start))
		start = time.Now()
		for i, tok := range tokens {
			f.resolves(t, fmt.Sprintf("link %d", i), sv.URLSlug, tok, want[i])
			if t.Failed() {
				break
			}
		}
		t.Logf("5000 links resolved in %v", time.Since(start))
	})

	t.Run("largest accepted values resolve", func(t *testing.T) {
		// Whatever the route accepts must resolve: a link that answers
		// "Invalid link." for its own values is a broken link.
		big := f.survey(t, "Big values")
		var defs []string
		item := map[string]any{}
		for i := range 20 {
			name := fmt.Sprintf("v%d", i)
			defs = append(defs, variableJSON(name))
			item[name] = strings.Repeat("x", 500)
		}
		f.create(t, big.ID, "["+strings.Join(defs, ",")+"]")
		checkMintedResolves(t, f, big, "20 variables of 500 characters", mustJSON(item), mustJSON(item))

		long := strings.Repeat("1234567890", 7) // a 70-digit number, for a type 1 variable
		checkMintedResolves(t, f, sv, "a 70-digit number", `{"vip":`+long+`}`, `{"vip":`+long+`}`)
		longer := strings.Repeat("1234567890", 45) // 450 digits
		checkMintedResolves(t, f, sv, "a 450-digit number", `{"vip":`+longer+`}`, `{"vip":`+longer+`}`)
		checkMintedResolves(t, f, sv, "a long fraction", `{"vip":0.`+longer+`}`, `{"vip":0.`+longer+`}`)
	})

	t.Run("refused", func(t *testing.T) {
		g := f.withHandler(t) // a cold sealer: a refused request calls KMS never
		many := strings.TrimSuffix(strings.Repeat(`{"city":"x"},`, maxLinks+1), ",")
		unknown := `{"values":{"3":{"town":["Unknown variable."]}}}`
		scalar := "Values must be strings, numbers or booleans."
		tests := []struct {
			what, body, want string
		}{
			{"values missing", `{}`, `{"values":["This field is required."]}`},
			{"values missing, other keys", `{"value":[{"city":"x"}]}`, `{"values":["This field is required."]}`},
			{"values an object", `{"values":{"city":"x"}}`, `{"values":["Expected a list of items but got type \"dict\"."]}`},
			{"values a string", `{"values":"x"}`, `{"values":["Expected a list of items but got type \"str\"."]}`},
			{"values a number", `{"values":3}`, `{"values":["Expected a list of items but got type \"int\"."]}`},
			{"values empty", `{"values":[]}`, `{"values":["This list may not be empty."]}`},
			{"5001 items", `{"values":[` + many + `]}`, `{"values":["Ensure this field has no more than 5000 elements."]}`},
			{"item not an object", `{"values":[{"city":"x"},5]}`, `{"values":{"1":{"non_field_errors":["Invalid data. Expected a dictionary, but got int."]}}}`},
			{"item a list", `{"values":[[{"city":"x"}]]}`, `{"values":{"0":{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}}}`},
			{"item null", `{"values":[null]}`, `{"values":{"0":{"non_field_errors":["Invalid data. Expected a dictionary, but got NoneType."]}}}`},
			{"unknown variable", `{"values":[{"city":"a"},{"city":"b"},{"city":"c"},{"town":"d"}]}`, unknown},
			{"unknown variable, wrong case", `{"values":[{"City":"a"}]}`, `{"values":{"0":{"City":["Unknown variable."]}}}`},
			{"nested object", `{"values":[{"city":{"a":1}}]}`, `{"values":{"0":{"city":[` + mustJSON(scalar) + `]}}}`},
			{"nested array", `{"values":[{"city":["a"]}]}`, `{"values":{"0":{"city":[` + mustJSON(scalar) + `]}}}`},
			{"float for type 2", `{"values":[{"age":1.5}]}`, `{"values":{"0":{"age":["A valid integer is required."]}}}`},
			{"string for type 2", `{"values":[{"age":"30"}]}`, `{"values":{"0":{"age":["A valid integer is required."]}}}`},
			{"boolean for type 2", `{"values":[{"age":true}]}`, `{"values":{"0":{"age":["A valid integer is required."]}}}`},
			{"is_unique a string", `{"values":[{"is_unique":"true"}]}`, `{"values":{"0":{"is_unique":["Must be a valid boolean."]}}}`},
			{"is_unique a number", `{"values":[{"city":"x","is_unique":1}]}`, `{"values":{"0":{"is_unique":["Must be a valid boolean."]}}}`},
			{"is_unique null", `{"values":[{"is_unique":null}]}`, `{"values":{"0":{"is_unique":["Must be a valid boolean."]}}}`},
			{"several items and fields", `{"values":[{"city":"ok"},{"town":"x","age":"y"},{"city":"ok"},{"is_unique":0,"vip":[]}]}`,
				`{"values":{"1":{"town":["Unknown variable."],"age":["A valid integer is required."]},"3":{"is_unique":["Must be a valid boolean."],"vip":[` + mustJSON(scalar) + `]}}}`},
			{"body a list", `[{"city":"x"}]`, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		}
		for _, tt := range tests {
			r := g.do(t, "POST", hashesPath(sv.ID), tt.body)
			expect(t, tt.what, r, 400, tt.want)
			noWrites(t, tt.what, r)
		}
		r := g.do(t, "POST", hashesPath(sv.ID), `{"values":null}`)
		expect(t, "values null", r, 400, `{"values":["This field may not be null."]}`) // as DRF's ListField
		noWrites(t, "values null", r)

		r = g.do(t, "POST", hashesPath(sv.ID), `{"values":[`)
		if r.code != 400 || !strings.HasPrefix(r.body, `{"detail":"JSON parse error - `) {
			t.Errorf("not JSON: %d %s", r.code, r.body)
		}
		r = send(t, g.h, "POST", hashesPath(sv.ID), `{"values":[{"city":"x"}]}`, "Authorization", "API-Key "+g.key, "Content-Type", "text/plain")
		expect(t, "text/plain", r, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`)
		noWrites(t, "text/plain", r)

		huge := `{"values":[{"city":"` + strings.Repeat("x", 6<<20) + `"}]}`
		r = g.do(t, "POST", hashesPath(sv.ID), huge)
		if r.code != 413 || !strings.HasPrefix(r.body, `{"detail":`) {
			t.Errorf("body over 6 MiB: %d %.200s, want 413 {\"detail\": ...}", r.code, r.body)
		}
		noWrites(t, "body over 6 MiB", r)
		// The same without a Content-Length: the limit holds while reading.
		req := httptest.NewRequest("POST", hashesPath(sv.ID), io.MultiReader(strings.NewReader(huge)) /* no known length */)
		req.ContentLength = -1
		req.Header.Set("Authorization", "API-Key "+g.key)
		req.Header.Set("Content-Type", "application/json")
		r = serveReq(g.h, req)
		if r.code != 413 {
			t.Errorf("chunked body over 6 MiB: %d %.200s, want 413", r.code, r.body)
		}
		noWrites(t, "chunked body over 6 MiB", r)
	})
}

// checkMintedResolves mints one link; if the route accepts the item, the
// link must answer exactly want.
func checkMintedResolves(t *testing.T, f *fixture, sv survey.Survey, what, item, want string) {
	t.Helper()
	r := f.do(t, "POST", hashesPath(sv.ID), `{"values":[`+item+`]}`)
	switch r.code {
	case 400:
		t.Logf("%s: refused at minting: %.300s", what, r.body)
		return
	case 200:
	default:
		t.Fatalf("%s: hashes answered %d %.300s", what, r.code, r.body)
	}
	token := tokensOf(t, sv, r.body, 1)[0]
	res := f.resolve(t, sv.URLSlug, token)
	if res.code != 200 || !jsonEqual(res.body, `{"values":`+want+`}`) {
		t.Errorf("%s: the route answered 200 with a link (token of %d characters) that resolves to %d %.200s; "+
			"want it to resolve to its values, or the item refused with 400",
			what, len(token), res.code, res.body)
	}
}

// TestKMSCalls runs on a table of its own, so that its first request finds
// no data key.
func TestKMSCalls(t *testing.T) {
	f := newFixture(t)
	sv := f.linkSurvey(t, "KMS")
	body := `{"values":[` + strings.TrimSuffix(strings.Repeat(`{"city":"Tehran","age":30,"vip":true},`, maxLinks), ",") + `]}`

	check := func(what string, g *fixture, kmsWant int, op string) []string {
		t.Helper()
		r := g.do(t, "POST", hashesPath(sv.ID), body)
		if r.code != 200 {
			t.Fatalf("%s: %d %.300s", what, r.code, r.body)
		}
		t.Logf("%s: %d DynamoDB call(s), %d KMS call(s): %v", what, r.dynamo, r.kms, r.ops)
		if r.kms != kmsWant || (op != "" && r.ops[op] != 1) {
			t.Errorf("%s: %d KMS calls (%v), want %d %s", what, r.kms, r.ops, kmsWant, op)
		}
		return tokensOf(t, sv, r.body, maxLinks)
	}
	tokens := check("cold sealer, fresh table", f, 1, "KMS.GenerateDataKey")
	check("warm sealer", f, 0, "")
	check("warm sealer again", f, 0, "")
	g := f.withHandler(t)
	check("cold sealer, key in the table", g, 1, "KMS.Decrypt")
	check("that sealer warm", g, 0, "")

	// Opening: a cold container decrypts the key once.
	h := f.withHandler(t)
	for i, want := range []int{1, 0, 0} {
		r := h.resolve(t, sv.URLSlug, tokens[i*100])
		if r.code != 200 {
			t.Fatalf("resolve %d: %d %s", i, r.code, r.body)
		}
		t.Logf("resolve %d: %d DynamoDB call(s), %d KMS call(s): %v", i, r.dynamo, r.kms, r.ops)
		if r.kms != want {
			t.Errorf("resolve %d on a new container: %d KMS calls, want %d", i, r.kms, want)
		}
	}
}
