package responders

import (
	"context"
	"errors"
	"net/http"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// Uploads is the uploads bucket as the group uses it: presigned POSTs for
// the responders' files, and the checks and tags of the submission;
// *uploads.Bucket implements it.
type Uploads interface {
	responding.EditFiles
	PresignPost(ctx context.Context, surveyID int64, u uploads.Upload) (uploads.Post, error)
}

var _ Uploads = (*uploads.Bucket)(nil)

// uploadView is the uploads route's 201 (contract section 16): the upload
// id that answers the question, and the presigned POST the browser sends
// the file with.
type uploadView struct {
	Upload string            `json:"upload"`
	URL    string            `json:"url"`
	Fields map[string]string `json:"fields"`
}

// handleUpload answers a presigned POST for one file of a responder's
// session (contract section 16): {"session", "element", "file_name",
// "content_type", "size"}. The session must open for the survey, the
// survey be open and the element one of its file-upload questions, the
// file within the element's rules (400 on file_name, content_type or
// size). The POST's policy fixes the object's key, its exact size and its
// content type for 15 minutes; the upload id seals what the submission
// checks. One Query of the survey's items; the presign and the seal are
// local.
func handleUpload(st Store, sealer responding.Sealer, bucket Uploads, now func() time.Time) http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		session, _ := form.String("session", api.Str{Required: true, NoTrim: true})
		element, _ := form.PK("element", true)
		name, _ := form.String("file_name", api.Str{Required: true, Max: uploads.MaxFileName})
		contentType, _ := form.String("content_type", api.Str{Required: true, Max: 255})
		size, _ := form.Int("size", api.Int{Required: true, Min: api.Bound(1)})
		if err := form.Err(); err != nil {
			return err
		}
		sid, err := st.SurveyIDBySlug(ctx, r.PathValue("url_slug"))
		if err != nil {
			return err
		}
		plain, err := sealer.OpenFor(ctx, links.PurposeSession, sid, session)
		if errors.Is(err, links.ErrInvalid) {
			return responding.ErrInvalidSession
		}
		if err != nil {
			return err
		}
		sess, err := responding.DecodeSession(plain)
		if err != nil {
			return responding.ErrInvalidSession
		}
		c, err := st.PublicCollection(ctx, sid, false)
		if err != nil {
			return err
		}
		at := now()
		if c.Survey.Deleted || !c.Survey.Active(at) {
			return survey.ErrSurveyClosed
		}
		if deadline, ok := survey.ResponseDeadline(sess.StartedAt, c.Settings.RespondingDuration); ok &&
			c.Settings.RespondingDurationType != survey.DurationPerQuestion && at.After(deadline) {
			return responding.ErrTimeIsUp
		}
		e, ok := c.Elements[element]
		if !ok || e.Type != survey.TypeFileUpload || e.Type.List() != survey.ListQuestions {
			return survey.FieldError("element", survey.InvalidPK(element))
		}
		file := uploads.File{FileName: name, ContentType: contentType, Size: size}
		if fields := uploads.RulesOf(e).Check(file); fields != nil {
			errs := survey.Fields{}
			for k, v := range fields {
				errs[k] = v
			}
			return errs.Err()
		}
		u := uploads.NewUpload(element, session, file)
		post, err := bucket.PresignPost(ctx, sid, u)
		if err != nil {
			return err
		}
		id, err := sealer.SealFor(ctx, links.PurposeUpload, sid, u.Encode())
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusCreated, uploadView{Upload: id, URL: post.URL, Fields: post.Fields})
		return nil
	})
}
