package responding

import (
	"context"
	"encoding/json"
	"strconv"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// Files checks the files of upload answers (contract section 16);
// *uploads.Bucket implements it. Keeping them is not the request's: the
// response carries their keys (store.AttrFiles) and the dispatch function
// keeps them from the table's stream (functions/dispatch/files.go), so a
// submission with an upload answer costs one HeadObject more and nothing
// else, and a Lambda that dies after the write loses no file.
type Files interface {
	Check(ctx context.Context, opener uploads.Opener, a uploads.Answer, rules uploads.Rules) (uploads.File, []string, error)
}

var _ Files = (*uploads.Bucket)(nil)

// checkFiles replaces each answer to a file-upload question (an upload id,
// as survey.CheckAnswers left it) with the file it names, once the upload
// is checked (uploads.Bucket.Check: made for this survey, element and
// session, within the element's rules, in the bucket with the declared
// size and type: one HeadObject each). It answers the files (their keys
// and elements), or a 400 naming every refused answer. Without files (a route that takes no
// uploads) every upload answer is refused.
func (s Service) checkFiles(ctx context.Context, files Files, c store.SurveyCollection, sid int64, session string, answers map[int64]json.RawMessage) ([]store.ResponseFile, error) {
	var keys []store.ResponseFile
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
		f, msgs, err := files.Check(ctx, s.Sealer, uploads.Answer{Survey: sid, Element: eid, Session: session, Upload: id}, uploads.RulesOf(e))
		if err != nil {
			return nil, err
		}
		if len(msgs) > 0 {
			errs[strconv.FormatInt(eid, 10)] = msgs
			continue
		}
		answers[eid], _ = json.Marshal(f)
		keys = append(keys, store.ResponseFile{Key: uploads.FileKey(sid, f), Element: eid})
	}
	if len(errs) > 0 {
		return nil, &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"answers": errs}}
	}
	return keys, nil
}
