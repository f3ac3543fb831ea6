package responses

import (
	"context"
	"strconv"

	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// Uploads is the bucket of the responders' files as the owner's views use
// it: presigned GETs and deletion; *uploads.Bucket implements it.
type Uploads interface {
	URL(ctx context.Context, key, fileName string) (string, error)
	Delete(ctx context.Context, keys []string) error
}

var _ Uploads = (*uploads.Bucket)(nil)

// view renders a response for its owner: each file answer {"file_name",
// "size", "url"} with a presigned GET valid for 10 minutes (signed locally,
// no AWS call; null without a bucket).
func (h handlers) view(ctx context.Context, sid int64, r survey.Response) (survey.ResponseView, error) {
	v := r.View()
	if h.uploads == nil {
		return v, nil
	}
	for id, a := range r.Answers {
		f, ok := survey.DecodeFileAnswer(a)
		if !ok {
			continue
		}
		u, err := h.uploads.URL(ctx, uploads.FileKey(sid, f), f.FileName)
		if err != nil {
			return v, err
		}
		v.Answers[strconv.FormatInt(id, 10)] = f.View(&u)
	}
	return v, nil
}

// fileKeys are the keys of a response's files.
func fileKeys(sid int64, r survey.Response) []string {
	var keys []string
	for _, a := range r.Answers {
		if f, ok := survey.DecodeFileAnswer(a); ok {
			keys = append(keys, uploads.FileKey(sid, f))
		}
	}
	return keys
}
