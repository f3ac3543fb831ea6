package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// translationsSK is a survey's languages and translations (contract
// section 24): one item in the survey's item collection, so the detail
// Query and the public routes' cached read (pubcache.go) carry every
// language at once, never a read per language.
const translationsSK = "TRANSLATIONS"

// MaxTranslationBytes bounds one language's texts as stored, so that the
// four languages a survey may hold texts of (three others, and one more
// kept after its default changed) fit the item's 400 KB.
const MaxTranslationBytes = 90_000

// translationAttr is the attribute holding one language's texts (JSON):
// each language its own attribute, so a PUT of one language's texts and a
// PUT of the language list write different attributes of the item and
// never undo each other.
func translationAttr(lang string) string { return "t_" + lang }

// translationsItem is the item as stored; Langs is the other languages as
// a JSON list (a PUT's condition finds a language in it with contains()).
type translationsItem struct {
	PK        string `dynamo:"PK"`
	SK        string `dynamo:"SK"`
	AccountID int64  `dynamo:"account_id"`
	Langs     string `dynamo:"langs"`
}

// decodeTranslations reads the item: the language list and every
// language's texts.
func decodeTranslations(item dynamo.Item) (survey.Translations, error) {
	var it translationsItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return survey.Translations{}, fmt.Errorf("store: decode translations: %w", err)
	}
	t := survey.Translations{Languages: []string{}, Texts: map[string]survey.Translation{}}
	if it.Langs != "" {
		if err := json.Unmarshal([]byte(it.Langs), &t.Languages); err != nil {
			return survey.Translations{}, fmt.Errorf("store: decode languages: %w", err)
		}
	}
	for _, code := range survey.LanguageCodes {
		var doc struct {
			V string `dynamo:"v"`
		}
		av, ok := item[translationAttr(code)]
		if !ok {
			continue
		}
		if err := dynamo.UnmarshalItem(dynamo.Item{"v": av}, &doc); err != nil {
			return survey.Translations{}, fmt.Errorf("store: decode %s texts: %w", code, err)
		}
		var tr survey.Translation
		if err := json.Unmarshal([]byte(doc.V), &tr); err != nil {
			return survey.Translations{}, fmt.Errorf("store: decode %s texts: %w", code, err)
		}
		t.Texts[code] = tr
	}
	return t, nil
}

// translationsWrite runs one write of the translations item in a
// transaction with the survey item (which must be the account's and out
// of the trash, and whose collection version moves, so every container's
// cached copy is read again). cond is the translations item's condition
// (or ""). A transaction lost to the tally or another owner write is
// tried again (each attempt writes the same values).
func (s *Store) translationsWrite(ctx context.Context, aid, sid int64, up *dynamo.Update, what string, onCond func() error) error {
	sup := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(attrCollectionVersion, 1).If(surveyWritable, aid, false)
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err := s.runTx(ctx, s.mirrorState(s.db.WriteTx().Update(sup).Update(up), sid, addCV)) // fresh each try (runTx adds to it)
		switch {
		case err == nil:
			return nil
		case txFailedAt(err, 0):
			return s.whyNotWritable(ctx, aid, sid)
		case txFailedAt(err, 1) && onCond != nil:
			return onCond()
		case retryOwnerConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail(fmt.Sprintf("%s of survey %d", what, sid), err)
	}
}

// SetLanguages sets a survey's other languages (the default not among
// them). Texts of a language taken out stay until it is added again.
func (s *Store) SetLanguages(ctx context.Context, aid, sid int64, langs []string) error {
	doc, err := json.Marshal(langs)
	if err != nil {
		return fmt.Errorf("store: encode languages: %w", err)
	}
	up := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, translationsSK).Set("account_id", aid).Set("langs", string(doc))
	return s.translationsWrite(ctx, aid, sid, up, "set languages", nil)
}

// PutTranslation replaces one language's texts, on the condition that
// the language is still one of the survey's (ENOTFOUND otherwise, as
// the route's {lang}).
func (s *Store) PutTranslation(ctx context.Context, aid, sid int64, lang string, t survey.Translation) error {
	if _, ok := survey.LanguageID(lang); !ok || strings.ContainsAny(lang, `"\`) {
		return survey.ErrNotFound
	}
	doc, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("store: encode texts: %w", err)
	}
	if len(doc) > MaxTranslationBytes {
		return survey.FieldError("elements", fmt.Sprintf("The texts of one language take at most %d bytes; these take %d.", MaxTranslationBytes, len(doc)))
	}
	up := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, translationsSK).
		Set(translationAttr(lang), string(doc)).If("contains(langs, ?)", `"`+lang+`"`)
	return s.translationsWrite(ctx, aid, sid, up, "put "+lang+" texts", func() error { return survey.ErrNotFound })
}

// copyTranslations is the copy's translations item: the source's
// languages (less the copy's default) and texts, under the copy's ids.
func copyTranslations(src survey.Translations, m survey.IDMap, sid, aid int64, def string) (dynamo.Item, error) {
	langs := []string{}
	for _, l := range src.Languages {
		if l != def {
			langs = append(langs, l)
		}
	}
	doc, err := json.Marshal(langs)
	if err != nil {
		return nil, err
	}
	item, err := dynamo.MarshalItem(translationsItem{PK: SurveyPK(sid), SK: translationsSK, AccountID: aid, Langs: string(doc)})
	if err != nil {
		return nil, err
	}
	remap := func(in map[int64]survey.Text) map[int64]survey.Text {
		if in == nil {
			return nil
		}
		out := make(map[int64]survey.Text, len(in))
		for id, t := range in {
			if nid, ok := m.Items[id]; ok {
				out[nid] = t
			}
		}
		return out
	}
	for code, tr := range src.Texts {
		ntr := survey.Translation{Name: tr.Name, Elements: map[int64]survey.ElementTexts{}}
		for eid, et := range tr.Elements {
			neid, ok := m.Elements[eid]
			if !ok {
				continue // a deleted element's texts stay behind
			}
			ntr.Elements[neid] = survey.ElementTexts{Fields: et.Fields, Choices: remap(et.Choices), Rows: remap(et.Rows), Columns: remap(et.Columns)}
		}
		b, err := json.Marshal(ntr)
		if err != nil {
			return nil, err
		}
		av, err := dynamo.Marshal(string(b))
		if err != nil {
			return nil, err
		}
		item[translationAttr(code)] = av
	}
	return item, nil
}
