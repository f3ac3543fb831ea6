package routing_test

import (
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"surveyservice/internal/routing"
)

// guide is the example of "Routing API requests" in the API Gateway
// developer guide, plus a $default.
var guide = []routing.Route{
	{Method: "GET", Path: "/pets/dog/1", Target: "dog1"},
	{Method: "GET", Path: "/pets/dog/{id}", Target: "dogID"},
	{Method: "GET", Path: "/pets/{proxy+}", Target: "petsProxy"},
	{Method: "ANY", Path: "/{proxy+}", Target: "anyProxy"},
	{Method: "ANY", Path: "$default", Target: "default"},
}

func TestSelectGuideExample(t *testing.T) {
	t.Parallel()
	table := routing.MustNew(guide)
	tests := []struct {
		method, path string
		want         string // route key
	}{
		{"GET", "/pets/dog/1", "GET /pets/dog/1"},
		{"GET", "/pets/dog/2", "GET /pets/dog/{id}"},
		{"GET", "/pets/cat/1", "GET /pets/{proxy+}"},
		{"POST", "/pets/dog/1", "ANY /{proxy+}"},
		{"GET", "/pets/dog/1/collar", "GET /pets/{proxy+}"},
		{"GET", "/anything", "ANY /{proxy+}"},
	}
	for _, tt := range tests {
		for _, reading := range routing.Readings {
			for _, path := range []string{tt.path, tt.path + "/"} {
				m, ok := table.Select(tt.method, path, reading)
				want := tt.want
				if reading == routing.SlashLiteral && strings.HasSuffix(path, "/") && !strings.Contains(want, "proxy+") {
					// As sent, /pets/dog/1/ is not /pets/dog/1: the greedy routes take it.
					want = map[string]string{"GET": "GET /pets/{proxy+}", "POST": "ANY /{proxy+}"}[tt.method]
				}
				if !ok || m.Route.Key() != want {
					t.Errorf("%s %s (%v) = %q, want %q", tt.method, path, reading, m.Route.Key(), want)
				}
			}
		}
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	table := routing.MustNew([]routing.Route{
		{Method: "ANY", Path: "/api/folders", Target: "folders"},
		{Method: "ANY", Path: "/api/folders/{proxy+}", Target: "folders"},
		{Method: "ANY", Path: "/api/v2/surveys", Target: "surveys"},
		{Method: "ANY", Path: "/api/v2/surveys/{proxy+}", Target: "surveys"},
		{Method: "ANY", Path: "/api/v2/surveys/{survey_id}/questions", Target: "elements"},
		{Method: "ANY", Path: "/api/v2/surveys/{survey_id}/questions/{proxy+}", Target: "elements"},
		{Method: "ANY", Path: "/api/public/surveys/{proxy+}", Target: "responders"},
		{Method: "ANY", Path: "/", Target: "root"},
		{Method: "ANY", Path: "$default", Target: "default"},
	})
	type want struct {
		key    string
		params map[string]string
	}
	tests := []struct {
		path             string
		ignored, literal want
	}{
		{"/api/folders", want{"ANY /api/folders", nil}, want{"ANY /api/folders", nil}},
		{"/api/folders/", want{"ANY /api/folders", nil}, want{"ANY /api/folders/{proxy+}", map[string]string{"proxy": ""}}},
		{"/api/folders/12/", want{"ANY /api/folders/{proxy+}", map[string]string{"proxy": "12"}},
			want{"ANY /api/folders/{proxy+}", map[string]string{"proxy": "12/"}}},
		{"/api/folders//", want{"$default", nil}, want{"ANY /api/folders/{proxy+}", map[string]string{"proxy": "/"}}},
		{"/api/foldersx/", want{"$default", nil}, want{"$default", nil}},
		{"/API/folders", want{"$default", nil}, want{"$default", nil}},
		{"/api/v2/surveys/5/questions/", want{"ANY /api/v2/surveys/{survey_id}/questions", map[string]string{"survey_id": "5"}},
			want{"ANY /api/v2/surveys/{survey_id}/questions/{proxy+}", map[string]string{"survey_id": "5", "proxy": ""}}},
		{"/api/v2/surveys/5/questions/7", want{"ANY /api/v2/surveys/{survey_id}/questions/{proxy+}", map[string]string{"survey_id": "5", "proxy": "7"}},
			want{"ANY /api/v2/surveys/{survey_id}/questions/{proxy+}", map[string]string{"survey_id": "5", "proxy": "7"}}},
		{"/api/v2/surveys/5/restore/", want{"ANY /api/v2/surveys/{proxy+}", map[string]string{"proxy": "5/restore"}},
			want{"ANY /api/v2/surveys/{proxy+}", map[string]string{"proxy": "5/restore/"}}},
		// A path variable needs a non-empty segment: the surveys' greedy route takes it.
		{"/api/v2/surveys//questions", want{"ANY /api/v2/surveys/{proxy+}", map[string]string{"proxy": "/questions"}},
			want{"ANY /api/v2/surveys/{proxy+}", map[string]string{"proxy": "/questions"}}},
		// An encoded "/" does not split a segment; parameters arrive decoded.
		{"/api/v2/surveys/1%2F2/questions", want{"ANY /api/v2/surveys/{survey_id}/questions", map[string]string{"survey_id": "1/2"}},
			want{"ANY /api/v2/surveys/{survey_id}/questions", map[string]string{"survey_id": "1/2"}}},
		{"/api/public/surveys/%D8%B4/authenticate/", want{"ANY /api/public/surveys/{proxy+}", map[string]string{"proxy": "ش/authenticate"}},
			want{"ANY /api/public/surveys/{proxy+}", map[string]string{"proxy": "ش/authenticate/"}}},
		{"/api/public/surveys/%zz", want{"ANY /api/public/surveys/{proxy+}", map[string]string{"proxy": "%zz"}},
			want{"ANY /api/public/surveys/{proxy+}", map[string]string{"proxy": "%zz"}}},
		{"/api/public/surveys/", want{"$default", nil}, want{"ANY /api/public/surveys/{proxy+}", map[string]string{"proxy": ""}}},
		{"/", want{"ANY /", nil}, want{"ANY /", nil}},
		{"", want{"$default", nil}, want{"$default", nil}},
		{"*", want{"$default", nil}, want{"$default", nil}},
	}
	for _, tt := range tests {
		for _, reading := range routing.Readings {
			w := tt.ignored
			if reading == routing.SlashLiteral {
				w = tt.literal
			}
			m, ok := table.Select("GET", tt.path, reading)
			if !ok || m.Route.Key() != w.key || !maps.Equal(m.Parameters, w.params) {
				t.Errorf("%q (%v) = %q %v, want %q %v", tt.path, reading, m.Route.Key(), m.Parameters, w.key, w.params)
			}
		}
	}
}

func TestSelectMethod(t *testing.T) {
	t.Parallel()
	table := routing.MustNew([]routing.Route{
		{Method: "GET", Path: "/a/{id}", Target: "get"},
		{Method: "ANY", Path: "/a/{id}", Target: "any"},
		{Method: "POST", Path: "/b", Target: "post"},
	})
	for _, tt := range []struct{ method, path, want string }{
		{"GET", "/a/1", "get"},
		{"DELETE", "/a/1", "any"},
		{"POST", "/b", "post"},
	} {
		if m, ok := table.Select(tt.method, tt.path, routing.SlashIgnored); !ok || m.Route.Target != tt.want {
			t.Errorf("%s %s = %q, want %q", tt.method, tt.path, m.Route.Target, tt.want)
		}
	}
	// No route for GET /b and no $default: API Gateway answers 404 itself.
	if m, ok := table.Select("GET", "/b", routing.SlashIgnored); ok {
		t.Errorf("GET /b = %q, want no route", m.Route.Key())
	}
}

func TestNewRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		routes []routing.Route
		want   string
	}{
		{"final slash", []routing.Route{{Method: "ANY", Path: "/api/folders/"}}, "ends with /"},
		{"no leading slash", []routing.Route{{Method: "ANY", Path: "api"}}, "start with /"},
		{"empty segment", []routing.Route{{Method: "ANY", Path: "/a//b"}}, "empty segment"},
		{"greedy not last", []routing.Route{{Method: "ANY", Path: "/a/{p+}/b"}}, "not the last"},
		{"partial variable", []routing.Route{{Method: "ANY", Path: "/a/x{id}"}}, "whole segment"},
		{"variable twice", []routing.Route{{Method: "ANY", Path: "/a/{id}/{id}"}}, "named twice"},
		{"bad method", []routing.Route{{Method: "FETCH", Path: "/a"}}, "method"},
		{"same shape", []routing.Route{{Method: "ANY", Path: "/a/{x}"}, {Method: "ANY", Path: "/a/{y}"}}, "same route"},
		{"two defaults", []routing.Route{{Method: "ANY", Path: "$default"}, {Method: "ANY", Path: "$default"}}, "twice"},
		{"default on GET", []routing.Route{{Method: "GET", Path: "$default"}}, "ANY"},
	}
	for _, tt := range tests {
		_, err := routing.New(tt.routes)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v, want an error with %q", tt.name, err, tt.want)
		}
	}
	if _, err := routing.New([]routing.Route{{Method: "GET", Path: "/a/{x}"}, {Method: "ANY", Path: "/a/{y}"}}); err != nil {
		t.Errorf("one path on GET and ANY: %v", err)
	}
}

func TestHandler(t *testing.T) {
	t.Parallel()
	target := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, name+" "+r.URL.Path) })
	}
	table := routing.MustNew([]routing.Route{
		{Method: "ANY", Path: "/api/templates", Target: "templates"},
		{Method: "ANY", Path: "/api/templates/{proxy+}", Target: "templates"},
	})
	h, err := table.Handler(routing.SlashIgnored, map[string]http.Handler{"templates": target("templates")})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/api/templates/":           "200 templates /api/templates/",
		"/api/templates/%D8%B4%D9/": "200 templates /api/templates/ش\xd9/",
		"/api/other/":               `404 {"message":"Not Found"}`,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if got := strconv.Itoa(rec.Code) + " " + rec.Body.String(); got != want {
			t.Errorf("GET %s = %q, want %q", path, got, want)
		}
	}
	if _, err := table.Handler(routing.SlashIgnored, map[string]http.Handler{}); err == nil || !strings.Contains(err.Error(), "no handler") {
		t.Errorf("missing target: %v", err)
	}
	if _, err := table.Handler(routing.SlashIgnored, map[string]http.Handler{"templates": target("t"), "extra": target("e")}); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("unreached target: %v", err)
	}
}

// FuzzSelect: any path selects without panicking; under SlashIgnored a
// final "/" changes nothing; a selected greedy route's parameter is never
// empty unless the path ends with "/" and the reading is literal.
func FuzzSelect(f *testing.F) {
	table := routing.MustNew(guide)
	for _, s := range []string{"", "/", "//", "/pets/dog/1", "/pets/dog/1/", "/pets/%zz/", "/pets//", "*", "/pets/dog/%2F/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		for _, reading := range routing.Readings {
			m, ok := table.Select("GET", path, reading)
			if !ok {
				t.Fatalf("%q (%v): no route despite $default", path, reading)
			}
			if p, has := m.Parameters["proxy"]; has && p == "" && !(reading == routing.SlashLiteral && strings.HasSuffix(path, "/")) {
				t.Fatalf("%q (%v) = %s with an empty proxy", path, reading, m.Route.Key())
			}
		}
		if len(path) > 0 && !strings.HasSuffix(path, "/") {
			a, _ := table.Select("GET", path, routing.SlashIgnored)
			b, _ := table.Select("GET", path+"/", routing.SlashIgnored)
			if a.Route != b.Route || !maps.Equal(a.Parameters, b.Parameters) {
				t.Fatalf("%q = %s %v but %q/ = %s %v", path, a.Route.Key(), a.Parameters, path, b.Route.Key(), b.Parameters)
			}
		}
	})
}
