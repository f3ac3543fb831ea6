package surveys_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/surveys"
	"surveyservice/internal/conflict"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestThemes walks contract section 22's library rules on the emulators:
// the public themes then the account's, create with defaults, validation
// on the field, public read-only, theme_id on a survey whose reads follow
// the theme's edits, and 409 on deleting a theme in use.
func TestThemes(t *testing.T) {
	f := newFixture(t, time.Now)
	var list []map[string]any
	r := f.do(t, "GET", "/api/themes/", "")
	if r.code != http.StatusOK || json.Unmarshal(r.body, &list) != nil || len(list) < 8 {
		t.Fatalf("list: %d %s", r.code, r.body)
	}
	for _, th := range list {
		if th["is_public"] != true {
			t.Fatalf("a new account lists only public themes: %v", th)
		}
	}
	for _, c := range []struct{ body, field string }{
		{`{"background_color": "red"}`, "background_color"},
		{`{"font_family": 99}`, "font_family"},
		{`{"font_size": 4}`, "font_size"},
		{`{"background_image_position": 10}`, "background_image_position"},
		{`{"background_image_brightness": 201}`, "background_image_brightness"},
		{`{"background_image_size_percentage": 9}`, "background_image_size_percentage"},
	} {
		r := f.do(t, "POST", "/api/themes/", c.body)
		var got map[string]any
		_ = json.Unmarshal(r.body, &got)
		if r.code != http.StatusBadRequest || got[c.field] == nil {
			t.Errorf("POST %s: %d %s, want 400 on %s", c.body, r.code, r.body, c.field)
		}
	}
	r = f.do(t, "POST", "/api/themes/", `{"background_color": "#102030", "font_family": 2, "id": 5, "is_public": true}`)
	var th map[string]any
	if r.code != http.StatusCreated || json.Unmarshal(r.body, &th) != nil {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if th["is_public"] != false || th["font_size"] != float64(2) || th["background_color"] != "#102030" || th["id"].(float64) <= 100 {
		t.Fatalf("created: %v", th)
	}
	tid := int64(th["id"].(float64))
	if r := f.do(t, "PATCH", "/api/themes/1/", `{"font_size": 3}`); r.code != http.StatusForbidden {
		t.Errorf("PATCH a public theme: %d %s", r.code, r.body)
	}
	if r := f.do(t, "GET", "/api/themes/fonts/", ""); r.code != http.StatusOK {
		t.Errorf("fonts: %d %s", r.code, r.body)
	}

	fid := folder(t, f.st, f.acct.ID, "F")
	_, sid := f.create(t, fid, "S")
	if r := f.do(t, "PATCH", fmt.Sprintf("/api/v2/surveys/%d/", sid), `{"theme_id": 99999, "name": "X"}`); r.code != http.StatusBadRequest {
		t.Errorf("unknown theme_id: %d %s", r.code, r.body)
	}
	if r := f.do(t, "PATCH", fmt.Sprintf("/api/v2/surveys/%d/", sid), fmt.Sprintf(`{"theme_id": %d}`, tid)); r.code != http.StatusOK {
		t.Fatalf("set theme: %d %s", r.code, r.body)
	}
	if r := f.do(t, "PATCH", fmt.Sprintf("/api/themes/%d/", tid), `{"question_color": "#ABCDEF"}`); r.code != http.StatusOK {
		t.Fatalf("edit theme: %d %s", r.code, r.body)
	}
	var d struct {
		Name  string         `json:"name"`
		Theme map[string]any `json:"theme"`
	}
	r = f.do(t, "GET", fmt.Sprintf("/api/v2/surveys/%d/", sid), "")
	if json.Unmarshal(r.body, &d) != nil || d.Theme["question_color"] != "#ABCDEF" || d.Theme["id"] != float64(tid) || d.Name != "S" {
		t.Fatalf("survey after the theme's edit: %s", r.body)
	}
	r = f.do(t, "DELETE", fmt.Sprintf("/api/themes/%d/", tid), "")
	if r.code != http.StatusConflict || string(r.body) != `{"detail":"This theme is used by 1 survey."}` {
		t.Fatalf("delete in use: %d %s", r.code, r.body)
	}
	if r := f.do(t, "PATCH", fmt.Sprintf("/api/v2/surveys/%d/", sid), `{"theme_id": 3}`); r.code != http.StatusOK {
		t.Fatalf("back to a public theme: %d %s", r.code, r.body)
	}
	if r := f.do(t, "DELETE", fmt.Sprintf("/api/themes/%d/", tid), ""); r.code != http.StatusNoContent {
		t.Fatalf("delete unused: %d %s", r.code, r.body)
	}
}

// TestThemeWritesRaceSurveysTakingIt: on the conflict model, edits and
// deletes of a theme racing surveys that take it (whose transactions check
// the theme's item) are writes that can succeed: 200, and 204 or the 409
// in use, never 503 (contract sections 3 and 22).
func TestThemeWritesRaceSurveysTakingIt(t *testing.T) {
	t.Parallel()
	cfg, p := testenv.ConflictConfig(t, conflict.DefaultHold)
	o := testenv.NewOwner(t, survey.PlanPro, "")
	st := store.New(cfg, o.Store.TableName())
	f := &fixture{st: st, h: testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: time.Now})), acct: o.Account, key: o.Key}
	o.Warm(t, f.h, detailPath("warm"), 404)
	fid := folder(t, st, f.acct.ID, "F")
	sids := make([]int64, 8)
	for i := range sids {
		_, sids[i] = f.create(t, fid, fmt.Sprintf("S%d", i))
	}
	before := p.Conflicts()
	for round, write := range []string{"PATCH", "PATCH", "DELETE", "DELETE"} {
		r := f.do(t, "POST", "/api/themes/", `{}`)
		var th struct{ ID int64 }
		if r.code != http.StatusCreated || json.Unmarshal(r.body, &th) != nil {
			t.Fatalf("create theme: %d %s", r.code, r.body)
		}
		theme := fmt.Sprintf("/api/themes/%d/", th.ID)
		var wg sync.WaitGroup
		start := make(chan struct{})
		takes := make([]reply, 3*len(sids))
		for i, sid := range sids {
			wg.Go(func() {
				<-start
				for k := range 3 { // takes it, leaves it for the default, takes it again
					tid := th.ID
					if k == 1 {
						tid = 1
					}
					takes[3*i+k] = f.do(t, "PATCH", fmt.Sprintf("/api/v2/surveys/%d/", sid), fmt.Sprintf(`{"theme_id": %d}`, tid))
				}
			})
		}
		writes := make([]reply, 12)
		for w := range 3 {
			wg.Go(func() {
				<-start
				for k := range 4 {
					i := 4*w + k
					body := ""
					if write == "PATCH" {
						body = fmt.Sprintf(`{"background_color": "#%06x"}`, round*16+i)
					}
					writes[i] = f.do(t, write, theme, body)
				}
			})
		}
		close(start)
		wg.Wait()
		for i, r := range takes {
			// A survey refused the theme finds it deleted: 400 on theme_id.
			if r.code != http.StatusOK && !(write == "DELETE" && r.code == http.StatusBadRequest) {
				t.Errorf("round %d: survey %d taking the theme: %d %s", round, sids[i/3], r.code, r.body)
			}
		}
		for i, r := range writes {
			ok := r.code == http.StatusOK
			if write == "DELETE" {
				ok = r.code == http.StatusNoContent || r.code == http.StatusConflict || r.code == http.StatusNotFound
			}
			if !ok {
				t.Errorf("round %d: %s %d of the theme racing surveys taking it: %d %s", round, write, i, r.code, r.body)
			}
		}
	}
	t.Logf("%d transaction conflicts", p.Conflicts()-before)
}

type themeFaultKey struct{}

// TestThemeDeleteFailedLeavesItUsable (contract section 22): a theme's
// DELETE that fails after marking the theme deleting (its count of the
// surveys using it, or its last transaction) answers the failure and
// clears the mark: a survey can take the theme after, as before the
// DELETE (it answered 400 on theme_id until the owner's next DELETE).
func TestThemeDeleteFailedLeavesItUsable(t *testing.T) {
	for _, op := range []string{"Query", "TransactWriteItems"} {
		t.Run(op, func(t *testing.T) {
			f := newFixture(t, time.Now)
			fid := folder(t, f.st, f.acct.ID, "F")
			_, sid := f.create(t, fid, "S")
			r := f.do(t, "POST", "/api/themes/", `{}`)
			var th struct{ ID int64 }
			if r.code != http.StatusCreated || json.Unmarshal(r.body, &th) != nil {
				t.Fatalf("create theme: %d %s", r.code, r.body)
			}
			ctx := context.WithValue(t.Context(), themeFaultKey{}, true)
			restore := localaws.InjectFaults(func(ctx context.Context, service, o string) error {
				if ctx.Value(themeFaultKey{}) != nil && service == "DynamoDB" && o == op {
					return errors.New("injected: the store failed")
				}
				return nil
			})
			err := f.st.DeleteTheme(ctx, f.acct.ID, th.ID)
			restore()
			if err == nil {
				t.Fatal("the delete succeeded through the fault")
			}
			if r := f.do(t, "PATCH", fmt.Sprintf("/api/v2/surveys/%d/", sid), fmt.Sprintf(`{"theme_id": %d}`, th.ID)); r.code != http.StatusOK {
				t.Errorf("a survey taking the theme after a failed delete: %d %s, want 200", r.code, r.body)
			}
			if r := f.do(t, "DELETE", fmt.Sprintf("/api/themes/%d/", th.ID), ""); r.code != http.StatusConflict {
				t.Errorf("deleting the theme in use: %d %s, want 409", r.code, r.body)
			}
		})
	}
}
