package responding

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"surveyservice/shared/links"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Submitted is a response recorded (or replayed) and, when the survey
// shows responders their answer sheet, that sheet and its sealed token.
type Submitted struct {
	store.Submitted
	Sheet      *survey.Sheet
	SheetToken string
}

// ErrNoSheet answers a sheet that does not exist, is not shown, or whose
// token does not open: all alike, 404.
var ErrNoSheet = survey.ErrNotFound

// withSheet adds the sheet to a recorded response when
// show_answer_sheet_to_responder is on. resp is the response as written,
// or nil for a replay (then it is read back: one GetItem).
func (s Service) withSheet(ctx context.Context, c store.SurveyCollection, done store.Submitted, resp *survey.Response, now time.Time) (Submitted, error) {
	out := Submitted{Submitted: done}
	if !c.Settings.ShowAnswerSheetToResponder {
		return out, nil
	}
	if resp == nil {
		r, err := s.Store.ResponseOfSurvey(ctx, c.Survey.ID, done.ID)
		if err != nil {
			return Submitted{}, err
		}
		resp = &r
	}
	// The response id as 8 bytes: a token seals at least two.
	token, err := s.Sealer.SealFor(ctx, links.PurposeSheet, c.Survey.ID, binary.BigEndian.AppendUint64(nil, uint64(done.ID)))
	if err != nil {
		return Submitted{}, err
	}
	sheet := sheetOf(inLanguage(c, resp.Language), *resp, now)
	out.Sheet, out.SheetToken = &sheet, token
	return out, nil
}

// sheetOf is a response's sheet as the survey shows it at now: the key only
// when survey.AnswerKeyShown says so.
func sheetOf(c store.SurveyCollection, r survey.Response, now time.Time) survey.Sheet {
	score := survey.Score{}
	if r.Score != nil {
		score = *r.Score
	}
	key := survey.AnswerKeyShown(c.Settings, c.Survey, now)
	return survey.SheetOf(c.Layout.QuestionElements(c.Elements), c.Layout.Members, r.Answers, score, key)
}

// OpenSheet is the sheet a sheet token of the survey of slug opens to, now,
// with the survey's collection (for its name and language) in the
// language the response was given in. A bad,
// foreign or tampered token, a survey that does not show sheets, or one
// in the trash answer ErrNoSheet.
func (s Service) OpenSheet(ctx context.Context, slug, token string) (survey.Sheet, store.SurveyCollection, error) {
	st, sealer, now := s.Store, s.Sealer, s.Now()
	sid, err := st.SurveyIDBySlug(ctx, slug)
	if err != nil {
		return survey.Sheet{}, store.SurveyCollection{}, err
	}
	plain, err := sealer.OpenFor(ctx, links.PurposeSheet, sid, token)
	if errors.Is(err, links.ErrInvalid) {
		return survey.Sheet{}, store.SurveyCollection{}, ErrNoSheet
	}
	if err != nil {
		return survey.Sheet{}, store.SurveyCollection{}, err
	}
	if len(plain) != 8 {
		return survey.Sheet{}, store.SurveyCollection{}, ErrNoSheet
	}
	rid := binary.BigEndian.Uint64(plain)
	if rid == 0 || rid > 1<<62 {
		return survey.Sheet{}, store.SurveyCollection{}, ErrNoSheet
	}
	c, err := st.PublicCollection(ctx, sid, false)
	if err != nil {
		return survey.Sheet{}, store.SurveyCollection{}, err
	}
	if c.Survey.Deleted || !c.Settings.ShowAnswerSheetToResponder {
		return survey.Sheet{}, store.SurveyCollection{}, ErrNoSheet
	}
	r, err := st.ResponseOfSurvey(ctx, sid, int64(rid))
	if err != nil {
		return survey.Sheet{}, store.SurveyCollection{}, err
	}
	c = inLanguage(c, r.Language)
	return sheetOf(c, r, now), c, nil
}

// inLanguage is c as a responder who answered in lang reads it (contract
// section 24: every text the responder reads is in their language): its
// name and its elements' texts translated where they are (the others in
// the default) and lang its language, when lang is one of the survey's
// other languages; else c as it is. The container's cached collection is
// never changed: the elements are copies.
func inLanguage(c store.SurveyCollection, lang string) store.SurveyCollection {
	def, _ := survey.LanguageCode(c.Survey.Language)
	id, ok := survey.LanguageID(lang)
	if !ok || !c.Translations.Has(lang, def) {
		return c
	}
	c.Elements = c.Translations.LocalizeAll(lang, def, c.Elements)
	c.Survey.Name, _ = c.Translations.Name(lang, def, c.Survey.Name)
	c.Survey.Language = id
	return c
}
