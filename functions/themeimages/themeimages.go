// Package themeimages is a theme's background image (contract section
// 22): an upload presigned into the uploads bucket, checked by its bytes,
// made into WebP sizes and set on the theme, and its removal. It is a
// function of its own because decoding and encoding a picture takes a
// gigabyte of memory and a WebAssembly encoder that the rest of the
// themes' routes (the surveys function) need not carry.
package themeimages

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"surveyservice/shared/api"
	"surveyservice/shared/backgrounds"
	"surveyservice/shared/backgrounds/picture"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// Store is what the group reads and writes; *store.Store implements it.
type Store interface {
	Theme(ctx context.Context, aid, tid int64) (survey.Theme, error)
	SetThemeImage(ctx context.Context, aid, tid int64, bi *survey.BackgroundImage) (*survey.BackgroundImage, error)
	ClaimThemeUpload(ctx context.Context, aid, tid, id int64) (bool, error)
	ReleaseThemeUpload(ctx context.Context, aid, tid, id int64) error
}

var _ Store = (*store.Store)(nil)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth  *api.Authenticator
	Store Store
	// MediaURL is where themes' /media/ paths resolve (MEDIA_URL).
	MediaURL string
	// Backgrounds is the uploads bucket, where the images live.
	Backgrounds Backgrounds
}

type handlers struct {
	st       Store
	mediaURL string
	images   Backgrounds
}

// New returns the group's routes: POST starts an upload, PUT sets it once
// checked, DELETE removes the image; an editor of any folder writes the
// account's themes (AccessEditor), as the surveys group's theme routes.
func New(d Deps) *api.Router {
	rt := api.NewRouter(d.Auth)
	h := handlers{st: d.Store, mediaURL: d.MediaURL, images: d.Backgrounds}
	image := api.Route{Path: "/api/themes/{theme_id}/background-image/", Name: "Theme Background Image"}
	for _, m := range []struct {
		method string
		h      http.Handler
	}{{"POST", h.backgroundStart()}, {"PUT", h.backgroundSet()}, {"DELETE", h.backgroundDelete()}} {
		r := image.With(m.method)
		r.Access = api.AccessEditor
		rt.Handle(r, m.h)
	}
	return rt
}

// ownTheme is the account's theme a write names (api.OwnTheme decides).
func (h handlers) ownTheme(r *http.Request) (survey.Account, survey.Theme, error) {
	return api.OwnTheme(r, h.st)
}

// Backgrounds is the bucket a theme's background image goes through: the
// owner's upload (a presigned POST), the sizes the service writes, and
// their removal; backgrounds.Bucket implements it.
type Backgrounds interface {
	PresignUpload(ctx context.Context, themeID, imageID, size int64, contentType string) (uploads.Post, error)
	Read(ctx context.Context, key string, limit int64) ([]byte, string, error)
	Write(ctx context.Context, themeID, imageID int64, pics []backgrounds.Picture) error
	Delete(ctx context.Context, keys []string) error
}

var _ Backgrounds = backgrounds.Bucket{}

// backgroundRules are the files the start accepts by their declaration
// (contract section 22); the bytes are checked after the upload.
var backgroundRules = uploads.Rules{MaxSizeMB: backgrounds.MaxBytes / uploads.MiB, Allowed: []string{"png", "jpg", "jpeg", "webp"}}

// errInvalidUpload is the PUT's 400 for an upload id not issued for this
// theme, not uploaded yet, or already used.
var errInvalidUpload = survey.FieldError("upload_id", "Invalid upload.")

// uploadStart is the start's 201: the upload id the PUT names, and the
// presigned POST the client sends the file with (section 16's shape).
type uploadStart struct {
	Upload string            `json:"upload"`
	URL    string            `json:"url"`
	Fields map[string]string `json:"fields"`
}

// backgroundStart starts an upload of the theme's background image:
// {"file_name", "content_type", "size"} declared as section 16's files
// (400 on the field), answered with a presigned POST of exactly that size
// and content type, valid for 10 minutes, to a key that names the theme.
// No AWS call: the presign is local.
func (h handlers) backgroundStart() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, t, err := h.ownTheme(r)
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		name, _ := form.String("file_name", api.Str{Required: true, Max: uploads.MaxFileName})
		contentType, _ := form.String("content_type", api.Str{Required: true, Max: 255})
		size, _ := form.Int("size", api.Int{Required: true})
		if err := form.Err(); err != nil {
			return err
		}
		if fields := backgroundRules.Check(uploads.File{FileName: name, ContentType: contentType, Size: size}); fields != nil {
			errs := survey.Fields{}
			for k, v := range fields {
				errs[k] = v
			}
			return errs.Err()
		}
		id := backgrounds.NewID()
		post, err := h.images.PresignUpload(r.Context(), t.ID, id, size, strings.ToLower(contentType))
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		api.Respond(w, r, http.StatusCreated, uploadStart{Upload: strconv.FormatInt(id, 10), URL: post.URL, Fields: post.Fields})
		return nil
	})
}

// backgroundSet makes an uploaded file the theme's background image:
// {"upload_id"}. The file is read by its bytes (PNG, JPEG or WebP of the
// type it was uploaded as, at most 5 MB, each side at most 6000 pixels
// by its header, before any pixel is decoded); a refused file answers 400
// on upload_id and is deleted. The sizes are written as WebP (nothing of
// the original's metadata survives), then the theme takes the image in
// one update, and the image it replaces and the upload are deleted. The
// sizes' keys come from the upload's id, so a retry after a failure writes
// the same objects again. One request at a time works on an upload (its
// claim on the theme's item): another PUT of it meanwhile answers 400 as a
// used upload does, where two at once each set the image and one racing a
// PUT of another upload could set it after that one deleted its files.
func (h handlers) backgroundSet() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		acct, t, err := h.ownTheme(r)
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		form := api.NewForm(body)
		raw, _ := form.String("upload_id", api.Str{Required: true, Max: 64})
		if err := form.Err(); err != nil {
			return err
		}
		id, ok := backgrounds.ParseUploadID(raw)
		if !ok {
			return errInvalidUpload
		}
		if ok, err := h.st.ClaimThemeUpload(ctx, acct.ID, t.ID, id); err != nil {
			return err
		} else if !ok {
			return errInvalidUpload // another request is setting it
		}
		defer func() {
			// Done (the upload deleted) or failed (a retry takes it at once).
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := h.st.ReleaseThemeUpload(rctx, acct.ID, t.ID, id); err != nil {
				api.Logger(ctx).Warn("theme upload claim left", "theme", t.ID, "upload", id, "err", err.Error())
			}
		}()
		key := backgrounds.UploadKey(t.ID, id)
		file, declared, err := h.images.Read(ctx, key, backgrounds.MaxBytes)
		if errors.Is(err, backgrounds.ErrNoObject) {
			return errInvalidUpload
		}
		if err != nil {
			return err
		}
		img, err := picture.Decode(file, strings.ToLower(declared))
		if err != nil {
			if derr := h.images.Delete(ctx, []string{key}); derr != nil {
				return derr
			}
			return survey.FieldError("upload_id", err.Error())
		}
		pics, err := picture.Pictures(img)
		if err != nil {
			return err
		}
		if err := h.images.Write(ctx, t.ID, id, pics); err != nil {
			return err
		}
		bi := backgrounds.Image(t.ID, id)
		old, err := h.st.SetThemeImage(ctx, acct.ID, t.ID, bi)
		if err != nil {
			return err
		}
		gone := []string{key}
		if old != nil && old.ID != id {
			gone = append(gone, backgrounds.MediaKeys(t.ID, old.ID)...)
		}
		h.deleteFiles(ctx, gone)
		t.BackgroundImage, t.BackgroundImageID = bi, &bi.ID
		api.Respond(w, r, http.StatusOK, t.WithMedia(h.mediaURL))
		return nil
	})
}

// backgroundDelete removes the theme's background image and its files:
// 204, also when it had none.
func (h handlers) backgroundDelete() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, t, err := h.ownTheme(r)
		if err != nil {
			return err
		}
		old, err := h.st.SetThemeImage(r.Context(), acct.ID, t.ID, nil)
		if err != nil {
			return err
		}
		if old != nil {
			h.deleteFiles(r.Context(), backgrounds.MediaKeys(t.ID, old.ID))
		}
		api.NoContent(w, r)
		return nil
	})
}

// deleteFiles removes files the theme no longer names. The theme's
// change is already committed, so a failure here is logged, not answered:
// the files are unreachable from every theme and cost storage only.
func (h handlers) deleteFiles(ctx context.Context, keys []string) {
	if err := h.images.Delete(ctx, keys); err != nil {
		api.Logger(ctx).Error("theme image files left", "keys", keys, "err", err.Error())
	}
}
