package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestViewsFollowTheirSurvey: a survey's view count is shown wherever the
// owner sees the survey (the folder list, one folder, the detail), also
// after the survey moves, is trashed and restored elsewhere, and a folder
// deletion never takes the count for a survey.
func TestViewsFollowTheirSurvey(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	folder := func(name string) int64 {
		f, err := st.CreateFolder(ctx, a.ID, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f.ID
	}
	f1, f2, f3 := folder("one"), folder("two"), folder("three")
	mk := func(fid int64) survey.Survey {
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: fid, Name: "viewed", Language: 1, Theme: survey.DefaultTheme()})
		if err != nil {
			t.Fatal(err)
		}
		return sv
	}
	sv, quiet := mk(f1), mk(f1)
	for range 3 {
		if err := st.CountView(ctx, a.ID, f1, sv.ID); err != nil {
			t.Fatal(err)
		}
	}
	// want checks the views shown of sv in the full list, in folder fid's
	// list and in the detail; quiet, never viewed, shows 0.
	want := func(what string, fid int64, views int64) {
		t.Helper()
		testenv.Tally(t) // views are counted from the stream
		tree, err := st.Folders(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		_, one, err := st.FolderWithSurveys(ctx, a.ID, fid)
		if err != nil {
			t.Fatal(err)
		}
		for name, list := range map[string][]survey.Survey{"folder list": tree.Surveys[fid], "one folder": one} {
			found := false
			for _, s := range list {
				switch s.ID {
				case sv.ID:
					found = true
					if s.Views != views {
						t.Errorf("%s: %s shows %d views, want %d", what, name, s.Views, views)
					}
				case quiet.ID:
					if s.Views != 0 {
						t.Errorf("%s: %s shows %d views of a survey never viewed", what, name, s.Views)
					}
				}
			}
			if !found {
				t.Errorf("%s: %s does not list the survey: %+v", what, name, list)
			}
		}
		c, err := st.SurveyCollection(ctx, a.ID, sv.ID)
		if err != nil || c.Survey.Views != views {
			t.Errorf("%s: the detail shows %d views (%v), want %d", what, c.Survey.Views, err, views)
		}
	}
	want("viewed", f1, 3)
	if err := st.UpdateSurvey(ctx, a.ID, sv.ID, store.SurveyUpdate{FolderID: &f2}); err != nil {
		t.Fatal(err)
	}
	want("moved", f2, 3)
	// A view counted by a request that read the survey before the move
	// does not put the count back in the old folder.
	if err := st.CountView(ctx, a.ID, f1, sv.ID); err != nil {
		t.Fatal(err)
	}
	want("viewed after the move", f2, 4)

	if err := st.TrashSurvey(ctx, a.ID, sv.ID); err != nil {
		t.Fatal(err)
	}
	tree, err := st.Folders(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Surveys[f2]) != 0 {
		t.Errorf("the trashed survey's count lists it: %+v", tree.Surveys[f2])
	}
	if err := st.RestoreSurvey(ctx, a.ID, sv.ID, &f3); err != nil {
		t.Fatal(err)
	}
	want("restored elsewhere", f3, 4)

	// Deleting the folder trashes the survey and leaves its count alone;
	// no survey item is made of the count.
	if err := st.DeleteFolder(ctx, a.ID, f3); err != nil {
		t.Fatal(err)
	}
	testenv.Tally(t)
	c, err := st.SurveyCollection(ctx, a.ID, sv.ID)
	if err != nil || !c.Survey.Deleted || c.Survey.Views != 4 {
		t.Errorf("after the folder's deletion: deleted %v, views %d, %v", c.Survey.Deleted, c.Survey.Views, err)
	}
	var junk []dynamo.Item
	err = dynamo.NewFromIface(st.Client()).Table(st.TableName()).Get(store.AttrPK, store.SurveyPK(0)).All(ctx, &junk)
	if err != nil || len(junk) != 0 {
		t.Errorf("the deletion wrote under survey 0: %v %v", junk, err)
	}
}

// TestViewsCountThemselvesOnce: at low rates a view adds itself to the
// views item (no record, no tally pass: 2 write units, not 3), exactly
// once under retries of its write (the same token again, in its minute or
// the next), at most ViewSetCap a minute (then a record, which the tally
// counts), never before the item has a count (the tally's first), and the
// sets of two minutes before are removed as the minutes pass.
func TestViewsCountThemselvesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testenv.Container(t)
	fixed := time.Now()
	st.Now = func() time.Time { return fixed }
	minute := fixed.Unix() / 60
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	f, err := st.CreateFolder(ctx, a.ID, "views", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, st, a.ID, f.ID, "counted once")
	views := func() int64 {
		t.Helper()
		c, err := st.SurveyCollection(ctx, a.ID, sv.ID)
		if err != nil {
			t.Fatal(err)
		}
		return c.Survey.Views
	}
	add := func(token string, m int64, want bool) {
		t.Helper()
		got, err := st.AddView(ctx, sv.ID, token, m)
		if err != nil || got != want {
			t.Fatalf("view %s in minute %+d: counted %v, %v; want %v", token, m-minute, got, err, want)
		}
	}
	add("first", minute, false) // no count yet: the record's way
	if err := st.CountView(ctx, a.ID, f.ID, sv.ID); err != nil {
		t.Fatal(err)
	}
	testenv.Tally(t)
	if n := views(); n != 1 {
		t.Fatalf("%d views after the first (a record, tallied), want 1", n)
	}
	add("t0", minute, true)
	add("t0", minute, true) // the SDK's retry of a write that landed
	if n := views(); n != 2 {
		t.Errorf("%d views after one view and its retry, want 2 (no tally pass needed)", n)
	}
	for i := 1; i < store.ViewSetCap; i++ {
		add(fmt.Sprintf("t%d", i), minute, true)
	}
	add("one too many", minute, false)
	// The container knows the minute is full: a record, without trying.
	if err := st.CountView(ctx, a.ID, f.ID, sv.ID); err != nil {
		t.Fatal(err)
	}
	testenv.Tally(t)
	if n, want := views(), int64(1+store.ViewSetCap+1); n != want {
		t.Errorf("%d views after %d direct and 2 records, want %d", n, store.ViewSetCap, want)
	}
	add("next", minute+1, true)
	add("t0", minute+1, true)    // a retry across the minute's end finds its token
	add("later", minute+2, true) // removes the first minute's set
	add("next", minute+2, true)  // the minute before's set is kept
	add("t1", minute+2, true)    // two minutes on, a token is gone: counted as new
	if n, want := views(), int64(1+store.ViewSetCap+1+3); n != want {
		t.Errorf("%d views after the minutes passed, want %d", n, want)
	}
}
