package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// SurveyCollection is everything stored under one survey, read in one
// Query of its item collection.
type SurveyCollection struct {
	Survey    survey.Survey
	Layout    survey.Layout
	Elements  map[int64]survey.Element
	Settings  survey.Settings
	Variables []survey.Variable
	// Quotas are the survey's quotas (contract section 25), by id; their
	// Count is not read here.
	Quotas []survey.Quota
	// Translations are the survey's other languages and their texts
	// (contract section 24; translations.go).
	Translations survey.Translations
	// UpdatedBy (0 for the owner) and UpdatedAt are the survey's last
	// writer, when one is recorded (activity.go); UpdatedAt "" otherwise.
	UpdatedBy int64
	UpdatedAt string
}

// SurveyCollection reads a survey of the account with everything under it
// in one strongly consistent Query, however many elements it has. A missing
// or foreign survey answers ENOTFOUND.
func (s *Store) SurveyCollection(ctx context.Context, aid, sid int64) (SurveyCollection, error) {
	var items []dynamo.Item
	if err := s.table.Get(AttrPK, SurveyPK(sid)).Consistent(true).All(ctx, &items); err != nil {
		return SurveyCollection{}, s.fail(fmt.Sprintf("query survey %d", sid), err)
	}
	c, found, err := decodeCollection(items)
	if err != nil {
		return SurveyCollection{}, err
	}
	if !found || c.Survey.AccountID != aid {
		return SurveyCollection{}, survey.ErrNotFound
	}
	if err := s.resolveThemes(ctx, []*survey.Survey{&c.Survey}, false); err != nil {
		return SurveyCollection{}, err
	}
	return c, nil
}

// decodeCollection sorts a survey's items into the survey, its layout,
// elements, settings and variables.
func decodeCollection(items []dynamo.Item) (SurveyCollection, bool, error) {
	c := SurveyCollection{Elements: map[int64]survey.Element{}, Variables: []survey.Variable{},
		Translations: survey.Translations{Languages: []string{}, Texts: map[string]survey.Translation{}}}
	found := false
	views := int64(-1)
	var partials int64
	for _, item := range items {
		sk := skOf(item)
		switch {
		case strings.HasPrefix(sk, PartialCountSK): // the base and each stream shard's (tally.go)
			var it struct {
				N int64 `dynamo:"partial_responses_count"`
			}
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return SurveyCollection{}, false, fmt.Errorf("store: decode partial count: %w", err)
			}
			partials += it.N
		case sk == viewsSK:
			v, err := decodeViews(item)
			if err != nil {
				return SurveyCollection{}, false, err
			}
			views = v.Views
		case sk == SurveySK:
			sv, err := decodeSurvey(item)
			if err != nil {
				return SurveyCollection{}, false, err
			}
			c.Survey, found = sv, true
		case sk == updatedSK:
			var it updatedItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return SurveyCollection{}, false, fmt.Errorf("store: decode last writer: %w", err)
			}
			c.UpdatedBy, c.UpdatedAt = it.SubUser, it.At
		case sk == layoutSK:
			var it layoutItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return SurveyCollection{}, false, fmt.Errorf("store: decode layout: %w", err)
			}
			l, err := it.layout()
			if err != nil {
				return SurveyCollection{}, false, err
			}
			c.Layout = l
		case sk == variablesSK:
			vars, _, err := decodeVariables(item)
			if err != nil {
				return SurveyCollection{}, false, err
			}
			c.Variables = vars
		case sk == translationsSK:
			t, err := decodeTranslations(item)
			if err != nil {
				return SurveyCollection{}, false, err
			}
			c.Translations = t
		case sk == settingsSK:
			var it settingsItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return SurveyCollection{}, false, fmt.Errorf("store: decode settings: %w", err)
			}
			c.Settings = it.settings()
		case strings.HasPrefix(sk, quotaPrefix):
			q, err := decodeQuota(item)
			if err != nil {
				return SurveyCollection{}, false, err
			}
			c.Quotas = append(c.Quotas, q)
		case strings.HasPrefix(sk, elementPrefix):
			var it elementItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return SurveyCollection{}, false, fmt.Errorf("store: decode element: %w", err)
			}
			e, err := it.element()
			if err != nil {
				return SurveyCollection{}, false, err
			}
			c.Elements[e.ID] = e
		}
	}
	if views >= 0 {
		c.Survey.Views = views
	}
	// The survey item's count is what the tally added there before the
	// partial count item (tally.go); the item's, what it added since.
	c.Survey.PartialResponses += partials
	return c, found, nil
}
