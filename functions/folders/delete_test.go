package folders_test

import (
	"context"
	"fmt"
	"testing"

	"surveyservice/shared/survey"
)

func TestDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	doomed := f.create(t, `{"name": "doomed", "order": 1}`)
	kept := f.create(t, `{"name": "kept", "order": 2}`)
	in1 := f.survey(t, doomed.ID, "in doomed 1")
	in2 := f.survey(t, doomed.ID, "in doomed 2")
	already := f.survey(t, doomed.ID, "already trashed")
	f.trash(t, already.ID)
	out1 := f.survey(t, kept.ID, "in kept 1")
	out2 := f.survey(t, kept.ID, "in kept 2")
	p := folderPath(doomed.ID)

	res := f.do("DELETE", p, "")
	if res.code != 204 || res.body != "" {
		t.Fatalf("DELETE: %v", res)
	}
	t.Logf("DELETE of a folder with 2 live surveys: %d DynamoDB calls", res.calls)
	f.wantCounts(t, "after DELETE", 2, 1) // the kept folder and its 2 surveys
	if res := f.do("DELETE", p, ""); res.code != 404 {
		t.Fatalf("DELETE twice: %v", res)
	}
	f.wantCounts(t, "after DELETE twice", 2, 1)

	for _, m := range []string{"GET", "PUT", "PATCH", "DELETE"} {
		body := ""
		if m == "PUT" || m == "PATCH" {
			body = `{"name": "back"}`
		}
		expect(t, m+" after DELETE", f.do(m, p, body), 404, `{"detail":"Not found."}`)
	}
	ls := f.list(t)
	if len(ls) != 1 || ls[0].ID != kept.ID {
		t.Fatalf("list after DELETE: %+v", ls)
	}
	checkSurveys(t, "kept folder", ls[0].Surveys, out1, out2)

	for _, sv := range []survey.Survey{in1, in2, already} {
		c, err := f.st.SurveyCollection(ctx, f.acct.ID, sv.ID)
		if err != nil {
			t.Errorf("survey %d: %v", sv.ID, err)
			continue
		}
		got := c.Survey
		if !got.Deleted || got.Name != sv.Name || got.FolderID != doomed.ID || got.URLSlug != sv.URLSlug ||
			got.PreviewCode != sv.PreviewCode || got.ReportCode != sv.ReportCode || !got.Created.Equal(sv.Created) {
			t.Errorf("survey %d after DELETE: %+v, want it in the trash with everything kept", sv.ID, got)
		}
	}
	for _, sv := range []survey.Survey{out1, out2} {
		c, err := f.st.SurveyCollection(ctx, f.acct.ID, sv.ID)
		if err != nil || c.Survey.Deleted || c.Survey.FolderID != kept.ID {
			t.Errorf("survey %d of another folder: %+v, %v", sv.ID, c.Survey, err)
		}
	}
}

// TestDeleteManySurveys: more surveys than one 100-item transaction holds;
// every one ends in the trash.
func TestDeleteManySurveys(t *testing.T) {
	t.Parallel()
	const n = 130
	f := newFixture(t)
	ctx := context.Background()
	fj := f.create(t, `{"name": "big"}`)
	neighbour := f.create(t, `{"name": "neighbour"}`)
	stay := f.survey(t, neighbour.ID, "stays")

	ids := make([]int64, n)
	errs := make([]error, n)
	parallel(n, func(i int) {
		sv, err := f.createSurvey(ctx, fj.ID, fmt.Sprintf("survey %d", i))
		ids[i], errs[i] = sv.ID, err
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("create survey %d: %v", i, err)
		}
	}
	if got := f.get(t, fj.ID); len(got.Surveys) != n {
		t.Fatalf("folder holds %d surveys, want %d", len(got.Surveys), n)
	}

	res := f.do("DELETE", folderPath(fj.ID), "")
	if res.code != 204 {
		t.Fatalf("DELETE: %v", res)
	}
	t.Logf("DELETE of a folder with %d surveys: %d DynamoDB calls", n, res.calls)

	deleted := make([]bool, n)
	parallel(n, func(i int) {
		c, err := f.st.SurveyCollection(ctx, f.acct.ID, ids[i])
		deleted[i], errs[i] = c.Survey.Deleted && c.Survey.FolderID == fj.ID, err
	})
	trashed := 0
	for i := range ids {
		if errs[i] != nil {
			t.Errorf("survey %d: %v", ids[i], errs[i])
		} else if deleted[i] {
			trashed++
		} else {
			t.Errorf("survey %d is not in the trash", ids[i])
		}
	}
	if trashed != n {
		t.Errorf("%d of %d surveys in the trash", trashed, n)
	}
	ls := f.list(t)
	if len(ls) != 1 || ls[0].ID != neighbour.ID || len(ls[0].Surveys) != 1 || ls[0].Surveys[0]["id"] != float64(stay.ID) {
		t.Errorf("list after DELETE: %+v", ls)
	}
	// 130 trashed in two transactions, each lowering the count by its own.
	f.wantCounts(t, "after DELETE", 1, 1)
}

// wantCounts checks the account's counts of live surveys and folders
// (docs/api.md, "Account limits").
func (f *fixture) wantCounts(t *testing.T, what string, surveys, folders int64) {
	t.Helper()
	c, err := f.st.AccountCounts(t.Context(), f.acct.ID)
	if err != nil || c.LiveSurveys != surveys || c.Folders != folders {
		t.Errorf("%s: counts %+v, %v; want %d live surveys and %d folders", what, c, err, surveys, folders)
	}
}
