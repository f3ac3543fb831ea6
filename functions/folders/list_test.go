package folders_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"surveyservice/functions/folders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

func TestList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	zeta := f.create(t, `{"name": "zeta", "order": 2}`)
	alpha := f.create(t, `{"name": "alpha", "order": 2}`)
	mid := f.create(t, `{"name": "mid", "order": 1}`)
	zero := f.create(t, `{"name": "zero", "order": 0}`)
	last := f.create(t, `{"name": "last"}`)
	if last.Order != 3 {
		t.Errorf("omitted order: %d, want 3", last.Order)
	}
	s1 := f.survey(t, mid.ID, "first")
	s2 := f.survey(t, mid.ID, "دومین نظرسنجی")
	s3 := f.survey(t, mid.ID, "trashed")
	f.trash(t, s3.ID)
	s4 := f.survey(t, zeta.ID, "in zeta")

	// Another account, with a folder and a survey of its own.
	other := newFixture(t)
	of := other.create(t, `{"name": "foreign", "order": 0}`)
	other.survey(t, of.ID, "foreign survey")

	// Expected: by order, equal orders by id (not by name or creation).
	tie := []folderJSON{zeta, alpha}
	if alpha.ID < zeta.ID {
		tie = []folderJSON{alpha, zeta}
	}
	want := []folderJSON{zero, mid, tie[0], tie[1], last}
	surveys := map[int64][]survey.Survey{mid.ID: {s1, s2}, zeta.ID: {s4}}

	res := f.do("GET", "/api/folders/", "")
	if res.code != 200 {
		t.Fatalf("list: %v", res)
	}
	var raw []map[string]any
	if err := json.Unmarshal([]byte(res.body), &raw); err != nil {
		t.Fatalf("list: %v: %s", err, res.body)
	}
	if len(raw) != len(want) {
		t.Fatalf("list: %d folders, want %d: %s", len(raw), len(want), res.body)
	}
	for i, w := range want {
		g := raw[i]
		if g["id"] != float64(w.ID) {
			t.Errorf("list[%d]: id %v, want %d (%s)", i, g["id"], w.ID, w.Name)
			continue
		}
		var gotSurveys []map[string]any
		for _, s := range g["surveys"].([]any) {
			gotSurveys = append(gotSurveys, s.(map[string]any))
		}
		checkSurveys(t, "folder "+w.Name, gotSurveys, surveys[w.ID]...)
		g["surveys"] = []any{}
		if exp := wantFolder(f.acct, w.ID, w.Order, w.Name); !reflect.DeepEqual(g, exp) {
			t.Errorf("list[%d]: %v, want %v", i, g, exp)
		}
	}

	// The other account sees only its own folder.
	ol := other.list(t)
	if len(ol) != 1 || ol[0].ID != of.ID || len(ol[0].Surveys) != 1 {
		t.Errorf("other account's list: %+v", ol)
	}
}

// TestListCalls: the list is one Query however many folders and surveys;
// the authenticator reads the key every time (its account once a 30 s).
func TestListCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		folders, surveys int
	}{
		{"empty", 0, 0},
		{"1 folder, 1 survey", 1, 1},
		{"5 folders, 20 surveys", 5, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var fids []int64
			for i := range tt.folders {
				fids = append(fids, f.create(t, fmt.Sprintf(`{"name": "f%d"}`, i)).ID)
			}
			for i := range tt.surveys {
				f.survey(t, fids[i%len(fids)], fmt.Sprintf("s%d", i))
			}
			// A fresh handler: its authenticator has never seen the key.
			cold := &fixture{h: testenv.Conform(folders.New(folders.Deps{Auth: api.NewAuthenticator(f.st), Store: f.st, Now: clock})), st: f.st, acct: f.acct, key: f.key}
			res := cold.do("GET", "/api/folders/", "")
			if res.code != 200 {
				t.Fatalf("cold list: %v", res)
			}
			// The key is read on every request; its account too when the
			// authenticator's copy is older than 30 s.
			if res.calls != 2 || res.auth != 2 {
				t.Errorf("cold list: %d DynamoDB calls and %d of the key's, want 2 (Query, the account's subdomain) and 2 (key, account)", res.calls, res.auth)
			}
			res = cold.do("GET", "/api/folders/", "")
			if res.code != 200 {
				t.Fatalf("warm list: %v", res)
			}
			if res.calls != 2 || res.auth < 1 || res.auth > 2 {
				t.Errorf("warm list: %d DynamoDB calls and %d of the key's, want 2 (Query, the account's subdomain) and 1-2 (key, account)", res.calls, res.auth)
			}
			var out []folderJSON
			_ = json.Unmarshal([]byte(res.body), &out)
			n := 0
			for _, fj := range out {
				n += len(fj.Surveys)
			}
			if len(out) != tt.folders || n != tt.surveys {
				t.Errorf("list: %d folders and %d surveys, want %d and %d", len(out), n, tt.folders, tt.surveys)
			}
		})
	}
}
