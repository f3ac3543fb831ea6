package store

import (
	"context"

	"surveyservice/shared/survey"
)

// previewSK is the sort key of a preview code's item.
const previewSK = "PREVIEW"

// PreviewPK maps a survey's preview code to its survey: Porsline's
// WordPress plugins embed /s/<preview_code> (contract section 21), so the
// page finds the survey by it as by its slug.
func PreviewPK(code string) string { return "PREVIEW#" + code }

// newPreviewItem is PREVIEW#<code> / PREVIEW, written with the survey:
// the shape of a report code's item.
func newPreviewItem(sv survey.Survey) reportItem {
	return reportItem{PK: PreviewPK(sv.PreviewCode), SK: previewSK, SurveyID: sv.ID}
}

// SurveyIDByPreviewCode finds the survey of a preview code: one GetItem.
// Surveys created before preview items existed have none until the
// operator's backfill (BackfillPreviewCodes) and answer ENOTFOUND.
func (s *Store) SurveyIDByPreviewCode(ctx context.Context, code string) (int64, error) {
	return s.surveyIDByCode(ctx, code, PreviewPK, previewSK)
}

// BackfillPreviewCodes writes the PREVIEW#<code> item of every survey
// created before preview items existed, as BackfillReportCodes does for
// report codes: one Scan of the survey items (an operator's command) and a
// conditional PutItem for each. It answers how many it wrote.
func (s *Store) BackfillPreviewCodes(ctx context.Context) (int, error) {
	return s.backfillCodeItems(ctx, "preview_code", func(id int64, code string) any {
		return newPreviewItem(survey.Survey{ID: id, PreviewCode: code})
	})
}
