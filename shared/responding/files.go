package responding

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// Files checks the files of upload answers and keeps them (contract
// section 16); *uploads.Bucket implements it.
type Files interface {
	Check(ctx context.Context, opener uploads.Opener, surveyID, element int64, session, id string, rules uploads.Rules) (uploads.File, []string, error)
	Keep(ctx context.Context, key string) error
}

var _ Files = (*uploads.Bucket)(nil)

// checkFiles replaces each answer to a file-upload question (an upload id,
// as survey.CheckAnswers left it) with the file it names, once the upload
// is checked (uploads.Bucket.Check: made for this survey, element and
// session, within the element's rules, in the bucket with the declared
// size and type: one HeadObject each). It answers the files' keys, or a
// 400 naming every refused answer. Without files (a route that takes no
// uploads) every upload answer is refused.
func checkFiles(ctx context.Context, files Files, sealer Sealer, c store.SurveyCollection, sid int64, session string, answers map[int64]json.RawMessage) ([]string, error) {
	var keys []string
	errs := survey.Fields{}
	for eid, raw := range answers {
		e, ok := c.Elements[eid]
		if !ok || e.Type != survey.TypeFileUpload {
			continue
		}
		var id string
		if json.Unmarshal(raw, &id) != nil || files == nil || session == "" {
			errs.Add(strconv.FormatInt(eid, 10), uploads.MsgInvalidUpload)
			continue
		}
		f, msgs, err := files.Check(ctx, sealer, sid, eid, session, id, uploads.RulesOf(e))
		if err != nil {
			return nil, err
		}
		if len(msgs) > 0 {
			errs[strconv.FormatInt(eid, 10)] = msgs
			continue
		}
		answers[eid], _ = json.Marshal(f)
		keys = append(keys, uploads.FileKey(sid, f))
	}
	if len(errs) > 0 {
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"answers": errs}}
	}
	return keys, nil
}

// keepFiles removes the pending tag of the files a recorded response
// answers with, so that the uploads' lifecycle rule leaves them: one
// DeleteObjectTagging each. It runs after the response is written: a
// refused response leaves its uploads to the rule. A failure is logged and
// answered 503, not 500: the response is recorded, and the client's retry
// (the same Idempotency-Key, or the same edit) keeps the files again, so
// none is lost to the rule.
func keepFiles(ctx context.Context, files Files, keys []string) error {
	for _, k := range keys {
		if err := files.Keep(ctx, k); err != nil {
			slog.ErrorContext(ctx, "uploads: keep a recorded response's file", "key", k, "err", err)
			return survey.Errorf(survey.EUNAVAILABLE, "The service is busy; try again shortly.")
		}
	}
	return nil
}
