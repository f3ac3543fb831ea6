package responses

import (
	"context"
	"encoding/json"

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

// Option configures the group.
type Option func(*handlers)

// WithUploads gives the group the uploads bucket: the owner sees each
// file answer with a download link, and deleting a response deletes its
// files (contract section 16).
func WithUploads(b Uploads) Option { return func(h *handlers) { h.uploads = b } }

// fileView is a file answer as its owner sees it: its name, its size in
// bytes and a presigned GET valid for 10 minutes (null without a bucket).
type fileView struct {
	FileName string  `json:"file_name"`
	Size     int64   `json:"size"`
	URL      *string `json:"url"`
}

// view renders a response for its owner: each file answer as a fileView
// (a local presign each, no AWS call).
func (h handlers) view(ctx context.Context, sid int64, r survey.Response) (survey.ResponseView, error) {
	v := r.View()
	for k, a := range v.Answers {
		f, ok := survey.DecodeFileAnswer(a)
		if !ok {
			continue
		}
		fv := fileView{FileName: f.FileName, Size: f.Size}
		if h.uploads != nil {
			u, err := h.uploads.URL(ctx, uploads.FileKey(sid, f), f.FileName)
			if err != nil {
				return v, err
			}
			fv.URL = &u
		}
		v.Answers[k], _ = json.Marshal(fv)
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
