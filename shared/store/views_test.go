package store_test

import (
	"context"
	"testing"

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
