package store_test

import (
	"context"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

// TestElementItems: choices, rows and columns get ids unique in the survey
// with one id allocation at most, the layout keeps each element's size (and
// forgets it on delete), and an element stored before the answer fields
// existed reads with their defaults.
func TestElementItems(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	f, err := st.CreateFolder(ctx, a.ID, "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "s", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	e := survey.NewElement(survey.TypeMatrix)
	e.Title = "M"
	for _, n := range []string{"a", "b", "c"} {
		e.Rows = append(e.Rows, survey.NamedItem{Name: n})
		e.Columns = append(e.Columns, survey.NamedItem{Name: n})
	}
	cctx, calls := awsenv.WithCalls(ctx)
	ch, err := st.CreateElement(cctx, a.ID, sv.ID, e, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if ops := calls.Ops(); ops["DynamoDB.UpdateItem"] > 2 || ops["DynamoDB.GetItem"] != 1 || ops["DynamoDB.TransactWriteItems"] != 1 {
		t.Errorf("create with 6 new items: %v", ops)
	}
	seen := map[int64]bool{}
	for _, it := range append(ch.Element.Rows, ch.Element.Columns...) {
		if it.ID <= 0 || seen[it.ID] {
			t.Errorf("item id %d: zero or repeated in %+v", it.ID, ch.Element)
		}
		seen[it.ID] = true
	}
	if e.Rows[0].ID != 0 {
		t.Error("CreateElement changed the caller's items")
	}

	c, err := st.SurveyCollection(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Elements[ch.Element.ID]; len(got.Rows) != 3 || got.Rows[2].ID != ch.Element.Rows[2].ID {
		t.Errorf("stored rows %+v, want %+v", got.Rows, ch.Element.Rows)
	}
	if c.Layout.Sizes[ch.Element.ID] < 100 {
		t.Errorf("layout sizes %v", c.Layout.Sizes)
	}

	// PATCH semantics at the store: edit's error is returned, nothing written.
	refuse := survey.FieldError("rows", "no")
	if _, err := st.UpdateElement(ctx, a.ID, sv.ID, ch.Element.ID, func(*survey.Element) error { return refuse }, survey.Placement{}); err != refuse {
		t.Errorf("UpdateElement returned %v, want edit's error", err)
	}
	up, err := st.UpdateElement(ctx, a.ID, sv.ID, ch.Element.ID, func(e *survey.Element) error {
		return e.ReplaceNamed("rows", []survey.NamedItem{{ID: e.Rows[1].ID, Name: "b"}, {Name: "new"}})
	}, survey.Placement{})
	if err != nil {
		t.Fatal(err)
	}
	if r := up.Element.Rows; len(r) != 2 || r[0].ID != ch.Element.Rows[1].ID || r[1].ID == 0 || seen[r[1].ID] {
		t.Errorf("rows after update %+v", r)
	}

	// An element written by an older version: the answer fields' defaults.
	const legacy = 999_999
	if err := st.PutElementDoc(ctx, sv.ID, legacy, `{"title":"Old","type":6,"image_or_video":1}`); err != nil {
		t.Fatal(err)
	}
	c, err = st.SurveyCollection(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	old := c.Elements[legacy]
	if old.ScaleMax != 10 || old.RatingMax != 5 || old.MaxLength != 5000 || old.Choices != nil || old.Title != "Old" {
		t.Errorf("legacy element %+v", old)
	}

	if err := st.DeleteElement(ctx, a.ID, sv.ID, ch.Element.ID); err != nil {
		t.Fatal(err)
	}
	c, err = st.SurveyCollection(ctx, a.ID, sv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Layout.Sizes[ch.Element.ID]; ok {
		t.Errorf("a deleted element keeps its size: %v", c.Layout.Sizes)
	}
}
