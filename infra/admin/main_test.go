package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// adminEnv is the environment one test gives the admin command: the emulator
// and a table of its own, so tests never share accounts or a catalog.
type adminEnv struct {
	table  string
	getenv func(string) string
}

var (
	unsafeTableChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)
	tableSeq         atomic.Int64 // keeps tables apart under -count=N, which reuses the emulator
)

func newEnv(t *testing.T) adminEnv {
	t.Helper()
	table := "admin-" + unsafeTableChars.ReplaceAllString(t.Name(), "-") + "-" + strconv.FormatInt(tableSeq.Add(1), 10)
	env := map[string]string{
		"AWS_ENDPOINT_URL":      testenv.Endpoint(t),
		"AWS_REGION":            "us-east-1",
		"AWS_ACCESS_KEY_ID":     testenv.AccessKey(t),
		"AWS_SECRET_ACCESS_KEY": "test",
		"TABLE_NAME":            table,
	}
	return adminEnv{table: table, getenv: func(k string) string { return env[k] }}
}

// store opens the test's table directly, as the functions would.
func (e adminEnv) store(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), awsenv.FromEnv(e.getenv), e.table)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	return st
}

type result struct {
	code           int
	stdout, stderr string
}

func (e adminEnv) run(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), args, e.getenv, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// ok checks a success: exit 0, nothing on stderr, and stdout exactly one JSON
// object on one line with exactly the keys given, decoded strictly into dst.
func (r result) ok(t *testing.T, dst any, keys ...string) {
	t.Helper()
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, want 0; stderr %q; stdout %q", r.code, r.stderr, r.stdout)
	}
	if !strings.HasSuffix(r.stdout, "\n") || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("stdout %q: want one line ending in a newline", r.stdout)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("stdout %q is not a JSON object: %v", r.stdout, err)
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout %q holds more than one JSON value (%v)", r.stdout, err)
	}
	got := make([]string, 0, len(raw))
	for k := range raw {
		got = append(got, k)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(keys))
	if raw == nil || !slices.Equal(got, want) {
		t.Fatalf("stdout %q: keys %v, want exactly %v", r.stdout, got, want)
	}
	strict := json.NewDecoder(strings.NewReader(r.stdout))
	strict.DisallowUnknownFields()
	if err := strict.Decode(dst); err != nil {
		t.Fatalf("stdout %q: strict decode into %T: %v", r.stdout, dst, err)
	}
}

// fails checks a failure: the exit code, nothing on stdout, one "admin: ..."
// report on stderr holding every fragment; the usage text only for exit 2.
func (r result) fails(t *testing.T, code int, fragments ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d; stderr %q", r.code, code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "admin: ") {
		t.Errorf("stderr %q: want it to start with \"admin: \"", r.stderr)
	}
	for _, f := range fragments {
		if !strings.Contains(r.stderr, f) {
			t.Errorf("stderr %q: want it to mention %q", r.stderr, f)
		}
	}
	switch code {
	case 2:
		if !strings.HasPrefix(r.stderr, "admin: usage: ") || !strings.HasSuffix(r.stderr, usage) {
			t.Errorf("stderr %q: want \"admin: usage: ...\" followed by the usage text", r.stderr)
		}
	default:
		if strings.Contains(r.stderr, "usage") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stderr %q: want a single line without the usage text", r.stderr)
		}
	}
}

type issued struct {
	AccountID int64  `json:"account_id"`
	APIKey    string `json:"api_key"`
}

func (e adminEnv) createAccount(t *testing.T, args ...string) issued {
	t.Helper()
	var out issued
	e.run(t, append([]string{"account", "create"}, args...)...).ok(t, &out, "account_id", "api_key")
	if out.AccountID <= 0 {
		t.Fatalf("account_id %d, want a positive id", out.AccountID)
	}
	checkKeyShape(t, out.APIKey)
	return out
}

func checkKeyShape(t *testing.T, key string) {
	t.Helper()
	if !strings.HasPrefix(key, "svk_") || !survey.WellFormedKey(key) {
		t.Fatalf("api_key %q is not a well-formed svk_ key", key)
	}
}

// resolves checks that the key authenticates as the account.
func resolves(t *testing.T, st *store.Store, key string, want survey.Account) {
	t.Helper()
	got, err := st.AccountByKeyHash(t.Context(), survey.HashKey(key))
	if err != nil {
		t.Fatalf("AccountByKeyHash(%q): %v", key, err)
	}
	if got != want {
		t.Fatalf("key resolves to %+v, want %+v", got, want)
	}
}

func unresolved(t *testing.T, st *store.Store, key string) {
	t.Helper()
	got, err := st.AccountByKeyHash(t.Context(), survey.HashKey(key))
	if survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("AccountByKeyHash(%q) = %+v, %v; want ENOTFOUND", key, got, err)
	}
}

func TestAccountCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // the table does not exist yet: admin creates it
	st := e.store(t)

	out := e.createAccount(t, "--email", "ana.smith@example.com", "--plan", "pro",
		"--first-name", "Ana", "--last-name", "Smith")
	ana := survey.Account{ID: out.AccountID, Email: "ana.smith@example.com", FirstName: "Ana", LastName: "Smith",
		UserType: survey.UserTypeOwner, Plan: survey.PlanPro}
	resolves(t, st, out.APIKey, ana)

	// Names are optional; every plan is accepted.
	for _, plan := range []survey.Plan{survey.PlanFree, survey.PlanEnterprise} {
		email := "bare-" + string(plan) + "@example.com"
		o := e.createAccount(t, "--plan", string(plan), "--email", email)
		if o.AccountID == ana.ID || o.APIKey == out.APIKey {
			t.Fatalf("second account reuses the first's id or key: %+v", o)
		}
		resolves(t, st, o.APIKey, survey.Account{ID: o.AccountID, Email: email, UserType: survey.UserTypeOwner, Plan: plan})
	}

	t.Run("duplicate email", func(t *testing.T) {
		for _, email := range []string{"ana.smith@example.com", "Ana.Smith@Example.COM"} {
			e.run(t, "account", "create", "--email", email, "--plan", "free", "--first-name", "Other").
				fails(t, 1, email)
		}
		// The first account and its key are untouched.
		resolves(t, st, out.APIKey, ana)
		got, err := st.AccountByEmail(t.Context(), "ana.smith@example.com")
		if err != nil || got != ana {
			t.Fatalf("AccountByEmail = %+v, %v; want %+v", got, err, ana)
		}
	})
}

func TestAccountCreateInvalid(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	if err := localaws.EnsureTable(t.Context(), st.Client(), e.table); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 151)
	tests := []struct {
		name, email, plan string
		extra             []string
		fragments         []string
	}{
		{"unknown plan", "plan1@example.com", "gold", nil, []string{`unknown plan "gold"`}},
		{"plan is case-sensitive", "plan2@example.com", "Pro", nil, []string{`unknown plan "Pro"`}},
		{"not an email", "not-an-email", "pro", nil, []string{`invalid email "not-an-email"`}},
		{"display name", "Ana <ana@example.com>", "pro", nil, []string{"invalid email"}},
		{"no domain", "ana@", "free", nil, []string{"invalid email"}},
		{"long first name", "long1@example.com", "free", []string{"--first-name", long}, []string{"first name is longer than 150"}},
		{"long last name", "long2@example.com", "free", []string{"--last-name", long}, []string{"last name is longer than 150"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"account", "create", "--email", tc.email, "--plan", tc.plan}, tc.extra...)
			e.run(t, args...).fails(t, 1, tc.fragments...)
			if a, err := st.AccountByEmail(t.Context(), tc.email); survey.ErrorCode(err) != survey.ENOTFOUND {
				t.Errorf("AccountByEmail(%q) = %+v, %v; want no account", tc.email, a, err)
			}
		})
	}
}

// TestUsage covers command lines admin refuses before doing any work: exit 2
// with the usage text. None of them reaches the emulator.
func TestUsage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name     string
		args     []string
		fragment string
	}{
		{"no arguments", nil, "missing command"},
		{"one word", []string{"account"}, "missing command"},
		{"unknown command", []string{"account", "delete", "--email", "a@example.com"}, `unknown command "account delete"`},
		{"unknown group", []string{"survey", "create"}, `unknown command "survey create"`},
		{"misspelt import", []string{"templates", "load", "f.json"}, `unknown command "templates load"`},
		{"missing --email", []string{"account", "create", "--plan", "pro"}, "account create needs --email and --plan"},
		{"missing --plan", []string{"account", "create", "--email", "a@example.com"}, "account create needs --email and --plan"},
		{"empty --email", []string{"account", "create", "--email", "", "--plan", "pro"}, "account create needs --email and --plan"},
		{"account create extra argument", []string{"account", "create", "--email", "a@example.com", "--plan", "pro", "extra"}, "account create takes 0 argument(s), got 1"},
		{"account create unknown flag", []string{"account", "create", "--email", "a@example.com", "--plan", "pro", "--name", "x"}, "flag provided but not defined: -name"},
		{"account create flag without value", []string{"account", "create", "--email"}, "flag needs an argument: -email"},
		{"key create without --account", []string{"key", "create"}, "key create needs --account with a positive account id"},
		{"key create non-numeric", []string{"key", "create", "--account", "abc"}, "key create needs --account with a positive account id"},
		{"key create zero", []string{"key", "create", "--account", "0"}, "key create needs --account with a positive account id"},
		{"key create negative", []string{"key", "create", "--account", "-3"}, "key create needs --account with a positive account id"},
		{"key create fraction", []string{"key", "create", "--account", "1.5"}, "key create needs --account with a positive account id"},
		{"key create overflow", []string{"key", "create", "--account", "99999999999999999999"}, "key create needs --account with a positive account id"},
		{"key create extra argument", []string{"key", "create", "--account", "5", "6"}, "key create takes 0 argument(s), got 1"},
		{"key revoke without --key", []string{"key", "revoke"}, "key revoke needs --key"},
		{"key revoke extra argument", []string{"key", "revoke", "--key", "svk_x", "svk_y"}, "key revoke takes 0 argument(s), got 1"},
		{"templates import without file", []string{"templates", "import"}, "templates import takes 1 argument(s), got 0"},
		{"templates import two files", []string{"templates", "import", "a.json", "b.json"}, "templates import takes 1 argument(s), got 2"},
		{"recount without --account", []string{"recount"}, "recount needs --account with a positive account id"},
		{"recount zero", []string{"recount", "--account", "0"}, "recount needs --account with a positive account id"},
		{"recount extra argument", []string{"recount", "--account", "5", "6"}, "recount takes 0 argument(s), got 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e.run(t, tc.args...).fails(t, 2, tc.fragment)
		})
	}
}

func TestKeyCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	first := e.createAccount(t, "--email", "keys@example.com", "--plan", "enterprise", "--first-name", "Kay")
	acct := survey.Account{ID: first.AccountID, Email: "keys@example.com", FirstName: "Kay",
		UserType: survey.UserTypeOwner, Plan: survey.PlanEnterprise}

	var out issued
	e.run(t, "key", "create", "--account", strconv.FormatInt(first.AccountID, 10)).ok(t, &out, "account_id", "api_key")
	if out.AccountID != first.AccountID {
		t.Errorf("account_id %d, want %d", out.AccountID, first.AccountID)
	}
	checkKeyShape(t, out.APIKey)
	if out.APIKey == first.APIKey {
		t.Fatalf("key create returned the account's existing key")
	}
	resolves(t, st, out.APIKey, acct)
	resolves(t, st, first.APIKey, acct) // the first key keeps working

	t.Run("unknown account", func(t *testing.T) {
		const missing = 2147483000
		e.run(t, "key", "create", "--account", strconv.FormatInt(missing, 10)).fails(t, 1, "no account has id 2147483000")
	})
}

func TestKeyRevoke(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)
	first := e.createAccount(t, "--email", "revoke@example.com", "--plan", "free")
	acct := survey.Account{ID: first.AccountID, Email: "revoke@example.com", UserType: survey.UserTypeOwner, Plan: survey.PlanFree}
	var second issued
	e.run(t, "key", "create", "--account", strconv.FormatInt(first.AccountID, 10)).ok(t, &second, "account_id", "api_key")

	var out struct {
		Revoked bool `json:"revoked"`
	}
	e.run(t, "key", "revoke", "--key", first.APIKey).ok(t, &out, "revoked")
	if !out.Revoked {
		t.Fatalf("revoked: false, want true")
	}
	unresolved(t, st, first.APIKey)
	resolves(t, st, second.APIKey, acct) // only the revoked key stops working

	t.Run("unknown key", func(t *testing.T) {
		unknown := survey.NewKey()
		e.run(t, "key", "revoke", "--key", unknown).fails(t, 1, "no such key")
		unresolved(t, st, unknown) // revoking did not invent the key
	})
}

// Catalog files.

const persianSlug = "نظرسنجی-رضایت-مشتری"

func template(id, score int64, slug, title string, similar any) map[string]any {
	t := map[string]any{
		"id": id, "score": score, "is_general": id%2 == 1,
		"long_description": "Long description of " + title, "short_description": "About " + title,
		"title": title, "title_color": 3, "embedding_link": "https://templates.example.com/" + slug,
		"thumbnail_image": "/media/templates/" + slug + ".png", "url_slug": slug,
		"categories": []int64{1, 4}, "usage_guide": "Use it.", "language": 2, "type": 1,
	}
	if similar != nil {
		t["similar_templates"] = similar
	}
	return t
}

// sampleCatalog is three templates: a Persian slug, similar templates as ids
// and as {"id": N} objects, and one with the optional fields left out.
func sampleCatalog(thirdTitle string) []map[string]any {
	a := template(11, 50, "customer-satisfaction", "Customer satisfaction", []any{12, map[string]any{"id": 13}})
	a["industries"] = []any{"retail", map[string]any{"id": 7}}
	a["meta_description"] = "Measure satisfaction"
	b := template(12, 90, persianSlug, "نظرسنجی رضایت مشتری", []any{map[string]any{"id": 11, "title": "ignored"}})
	c := template(13, 90, "employee_feedback", thirdTitle, nil)
	return []map[string]any{a, b, c}
}

func writeFile(t *testing.T, name string, v any) string {
	t.Helper()
	var data []byte
	switch v := v.(type) {
	case string:
		data = []byte(v)
	default:
		var err error
		if data, err = json.MarshalIndent(v, "", "  "); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type importResult struct {
	Imported int `json:"imported"`
}

func (e adminEnv) importOK(t *testing.T, path string, want int) {
	t.Helper()
	var out importResult
	e.run(t, "templates", "import", path).ok(t, &out, "imported")
	if out.Imported != want {
		t.Fatalf("imported %d, want %d", out.Imported, want)
	}
}

func catalog(t *testing.T, st *store.Store) []survey.Template {
	t.Helper()
	got, err := st.Catalog(t.Context())
	if err != nil {
		t.Fatalf("Catalog: %v", err)
	}
	return got
}

func ids(ts []survey.Template) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func TestTemplatesImport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store(t)

	path := writeFile(t, "catalog.json", sampleCatalog("Employee feedback"))
	e.importOK(t, path, 3)

	check := func(t *testing.T, thirdTitle string) []survey.Template {
		t.Helper()
		got := catalog(t, st)
		// score descending, then id
		if want := []int64{12, 13, 11}; !slices.Equal(ids(got), want) {
			t.Fatalf("catalog ids %v, want %v", ids(got), want)
		}
		byID := map[int64]survey.Template{}
		for _, tpl := range got {
			byID[tpl.ID] = tpl
		}
		a, b, c := byID[11], byID[12], byID[13]
		if a.URLSlug != "customer-satisfaction" || b.URLSlug != persianSlug || c.URLSlug != "employee_feedback" {
			t.Errorf("slugs %q %q %q", a.URLSlug, b.URLSlug, c.URLSlug)
		}
		if b.Title != "نظرسنجی رضایت مشتری" || c.Title != thirdTitle || a.Title != "Customer satisfaction" {
			t.Errorf("titles %q %q %q, want the third %q", a.Title, b.Title, c.Title, thirdTitle)
		}
		if !slices.Equal(a.SimilarIDs, []int64{12, 13}) || !slices.Equal(b.SimilarIDs, []int64{11}) || len(c.SimilarIDs) != 0 {
			t.Errorf("similar ids %v %v %v, want [12 13] [11] []", a.SimilarIDs, b.SimilarIDs, c.SimilarIDs)
		}
		if a.Score != 50 || b.Score != 90 || !a.IsGeneral || b.IsGeneral || a.TitleColor != 3 || a.Language != 2 || a.Type != 1 ||
			!slices.Equal(a.Categories, []int64{1, 4}) || a.EmbeddingLink != "https://templates.example.com/customer-satisfaction" ||
			a.ThumbnailImage != "/media/templates/customer-satisfaction.png" || a.UsageGuide != "Use it." ||
			a.ShortDescription != "About Customer satisfaction" || a.LongDescription != "Long description of Customer satisfaction" {
			t.Errorf("template 11 fields: %+v", a)
		}
		if a.MetaDescription == nil || *a.MetaDescription != "Measure satisfaction" || c.MetaDescription != nil {
			t.Errorf("meta_description %v %v, want \"Measure satisfaction\" and null", a.MetaDescription, c.MetaDescription)
		}
		if ind, _ := json.Marshal(a.Industries); string(ind) != `["retail",{"id":7}]` {
			t.Errorf("industries %s", ind)
		}
		if c.Industries == nil || len(c.Industries) != 0 || c.Categories == nil {
			t.Errorf("template 13: industries %v categories %v, want empty lists", c.Industries, c.Categories)
		}
		return got
	}
	check(t, "Employee feedback")

	// The Persian slug is served, its similar template expanded.
	detail, err := st.TemplateBySlug(t.Context(), persianSlug)
	if err != nil || detail.ID != 12 || len(detail.SimilarTemplates) != 1 || detail.SimilarTemplates[0].ID != 11 {
		t.Fatalf("TemplateBySlug(%q) = %+v, %v; want id 12 with similar [11]", persianSlug, detail, err)
	}

	t.Run("re-import is idempotent", func(t *testing.T) {
		e.importOK(t, path, 3)
		check(t, "Employee feedback")
	})

	var stored []survey.Template
	t.Run("re-import updates changed fields", func(t *testing.T) {
		changed := writeFile(t, "catalog.json", sampleCatalog("Employee feedback 2026"))
		e.importOK(t, changed, 3)
		stored = check(t, "Employee feedback 2026")
	})
	if t.Failed() {
		return
	}

	// Every refused file leaves the catalog exactly as it was: a new
	// template (id 14) and a retitled one (id 11) placed before the fault
	// must not be written either.
	valid14 := template(14, 10, "new-template", "New template", []any{11})
	retitled11 := sampleCatalog("x")[0]
	retitled11["title"] = "Retitled"
	missingTitle := template(15, 10, "missing-title", "Missing title", nil)
	delete(missingTitle, "title")
	nullSlug := template(15, 10, "null-slug", "Null slug", nil)
	nullSlug["url_slug"] = nil
	dangling := template(15, 10, "dangling", "Dangling", []any{11, map[string]any{"id": 999}})
	wrongType := template(15, 10, "wrong-type", "Wrong type", nil)
	wrongType["score"] = "high"
	collision := template(15, 10, "employee_feedback", "Collision", nil)
	missingPath := filepath.Join(t.TempDir(), "missing.json")
	refused := []struct {
		name      string
		path      string
		fragments []string
	}{
		{"missing field", writeFile(t, "c.json", []any{retitled11, missingTitle, valid14}),
			[]string{"template #2", "(id 15)", `field "title": missing`}},
		{"null required field", writeFile(t, "c.json", []any{valid14, nullSlug}),
			[]string{"template #2", `field "url_slug": missing`}},
		{"dangling similar id", writeFile(t, "c.json", []any{valid14, dangling, retitled11}),
			[]string{"template #2", "(id 15)", `field "similar_templates"`, "no template has id 999"}},
		{"wrong type", writeFile(t, "c.json", []any{retitled11, wrongType}),
			[]string{"template #2", `field "score": wrong type`}},
		{"not JSON", writeFile(t, "c.json", "id,title\n11,Customer satisfaction\n"),
			[]string{"not a JSON array of template objects"}},
		{"not an array", writeFile(t, "c.json", map[string]any{"templates": []any{valid14}}),
			[]string{"not a JSON array of template objects"}},
		{"truncated", writeFile(t, "c.json", `[{"id": 14, "title": "New`),
			[]string{"not a JSON array of template objects"}},
		{"missing file", missingPath, []string{missingPath, "no such file or directory"}},
		{"slug of another stored template", writeFile(t, "c.json", []any{retitled11, collision}),
			[]string{"template #2", "(id 15)", `field "url_slug"`, `"employee_feedback" is the slug of stored template id 13`}},
		{"slug duplicated in the file", writeFile(t, "c.json", []any{valid14, template(16, 10, "new-template", "Twin", nil)}),
			[]string{"template #2", "(id 16)", `field "url_slug"`, "also the slug of template id 14"}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			e.run(t, "templates", "import", tc.path).fails(t, 1, tc.fragments...)
			if got := catalog(t, st); !reflect.DeepEqual(got, stored) {
				t.Fatalf("catalog changed by a refused import:\n got %+v\nwant %+v", got, stored)
			}
		})
	}

	t.Run("slug moved from a template renamed in the same file", func(t *testing.T) {
		renamed := template(13, 90, "employee-feedback-v2", "Employee feedback 2026", nil)
		taker := template(14, 10, "employee_feedback", "Takes the old slug", []any{11}) // 11 is only in the store
		e.importOK(t, writeFile(t, "c.json", []any{taker, renamed}), 2)
		if got := ids(catalog(t, st)); !slices.Equal(got, []int64{12, 13, 11, 14}) {
			t.Fatalf("catalog ids %v, want [12 13 11 14]", got)
		}
		for slug, want := range map[string]int64{"employee_feedback": 14, "employee-feedback-v2": 13} {
			got, err := st.TemplateBySlug(t.Context(), slug)
			if err != nil || got.ID != want {
				t.Errorf("TemplateBySlug(%q) = id %d, %v; want id %d", slug, got.ID, err, want)
			}
		}
	})
}

// TestNoRealAWSByAccident: with no endpoint set the admin command names
// the account it would act on and stops, unless it is given --aws.
func TestNoRealAWSByAccident(t *testing.T) {
	env := map[string]string{"AWS_REGION": "eu-west-1", "TABLE_NAME": "prod-surveys", "AWS_PROFILE": "ops"}
	getenv := func(k string) string { return env[k] }
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"account", "create", "--email", "a@example.com", "--plan", "pro"}, getenv, &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2; stderr %s", code, stderr.String())
	}
	for _, want := range []string{"real AWS", "eu-west-1", `"prod-surveys"`, `profile "ops"`, "--aws", "make admin"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	stderr.Reset()
	if code := run(t.Context(), []string{"--aws", "no-such-command"}, getenv, &stdout, &stderr); code != 2 || strings.Contains(stderr.String(), "would act on real AWS") {
		t.Errorf("with --aws: exit %d, stderr %s; want the usage error, past the check", code, stderr.String())
	}
}
