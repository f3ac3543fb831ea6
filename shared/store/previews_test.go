package store_test

import (
	"context"
	"testing"

	"github.com/guregu/dynamo/v2"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestPreviewCodes: a survey's preview code finds it (the page's address
// of Porsline's plugins, contract section 21); a survey stored before its
// PREVIEW# item (or REPORT# item) existed gets it from the operator's
// backfill, which leaves existing items alone.
func TestPreviewCodes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := testenv.NewOwner(t, survey.PlanFree, "previews")
	sv := testenv.NewSurvey(t, o.Store, o.Account.ID, o.Folder, "p")
	st := o.Store
	if sid, err := st.SurveyIDByPreviewCode(ctx, sv.PreviewCode); err != nil || sid != sv.ID {
		t.Fatalf("by preview code: %d %v, want %d", sid, err, sv.ID)
	}
	if _, err := st.SurveyIDByPreviewCode(ctx, sv.URLSlug); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("a slug as a preview code: %v, want ENOTFOUND", err)
	}
	// As a survey created before the items.
	table := dynamo.NewFromIface(st.Client()).Table(st.TableName())
	for pk, sk := range map[string]string{store.PreviewPK(sv.PreviewCode): "PREVIEW", store.ReportPK(sv.ReportCode): "REPORT"} {
		if err := table.Delete(store.AttrPK, pk).Range(store.AttrSK, sk).Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.SurveyIDByPreviewCode(ctx, sv.PreviewCode); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("without its item: %v, want ENOTFOUND", err)
	}
	for name, backfill := range map[string]func(context.Context) (int, error){
		"preview": st.BackfillPreviewCodes, "report": st.BackfillReportCodes,
	} {
		if n, err := backfill(ctx); err != nil || n < 1 {
			t.Fatalf("%s backfill: %d %v, want at least this survey's", name, n, err)
		}
	}
	if sid, err := st.SurveyIDByPreviewCode(ctx, sv.PreviewCode); err != nil || sid != sv.ID {
		t.Fatalf("after the backfill: %d %v, want %d", sid, err, sv.ID)
	}
	if sid, err := st.SurveyIDByReportCode(ctx, sv.ReportCode); err != nil || sid != sv.ID {
		t.Fatalf("report code after the backfill: %d %v, want %d", sid, err, sv.ID)
	}
}
