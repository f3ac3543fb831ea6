package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const settingsSK = "SETTINGS"

// settingsItem is SURVEY#<sid> / SETTINGS. Each setting is an attribute of
// its own, so that a PATCH writes only the fields it names and concurrent
// PATCHes of different fields both land. A survey without the item has
// the default settings. code_count held the number of authentication
// codes before the count moved to its shards (see CodeCount); it is read
// as a part of the count and never written.
type settingsItem struct {
	PK                               string   `dynamo:"PK"`
	SK                               string   `dynamo:"SK"`
	AuthenticationNeeded             bool     `dynamo:"authentication_needed"`
	ServiceAuth                      bool     `dynamo:"service_auth"`
	ServiceAuthNoSpam                bool     `dynamo:"service_auth_no_spam"`
	ServiceAuthDomains               []string `dynamo:"service_auth_domains"`
	PhoneNumberAuth                  bool     `dynamo:"phone_number_auth"`
	PhoneNumberAuthIsUnique          bool     `dynamo:"phone_number_auth_is_unique"`
	PhoneNumbersLimited              bool     `dynamo:"phone_numbers_limited"`
	CodeAuth                         bool     `dynamo:"code_auth"`
	CodeAuthIsUnique                 bool     `dynamo:"code_auth_is_unique"`
	CodeAuthenticationFileName       *string  `dynamo:"code_authentication_file_name"`
	AuthDescription                  *string  `dynamo:"auth_description"`
	CaptchaNeeded                    bool     `dynamo:"captcha_needed"`
	HiddenResponderDetails           bool     `dynamo:"hidden_responder_details"`
	PrivacyPreservingMessageEnabled  bool     `dynamo:"privacy_preserving_message_enabled"`
	NoSpam                           bool     `dynamo:"no_spam"`
	TagSpam                          bool     `dynamo:"tag_spam"`
	LocationIsActive                 bool     `dynamo:"location_is_active"`
	LocationIsRequired               bool     `dynamo:"location_is_required"`
	LocationDescription              *string  `dynamo:"location_description"`
	HideNextButton                   bool     `dynamo:"hide_next_button"`
	HidePreviousButton               bool     `dynamo:"hide_previous_button"`
	HideProgressbar                  bool     `dynamo:"hide_progressbar"`
	RespondingDuration               *string  `dynamo:"responding_duration"`
	EditResponseEnabled              bool     `dynamo:"edit_response_enabled"`
	BrandingRemoval                  bool     `dynamo:"branding_removal"`
	RespondingDurationType           int64    `dynamo:"responding_duration_type"`
	QuestionsRespondingDuration      *string  `dynamo:"questions_responding_duration"`
	ShowAnswerSheetEnabled           bool     `dynamo:"show_answer_sheet_enabled"`
	ShowAnswerSheetToResponder       bool     `dynamo:"show_answer_sheet_to_responder"`
	ShowAnswerKeyAfterResponseSubmit bool     `dynamo:"show_answer_key_after_response_submit"`
	ShowAnswerKeyAfterSurveyStop     bool     `dynamo:"show_answer_key_after_survey_stop"`
	CodeCount                        int64    `dynamo:"code_count"`
	// EmbedOrigins is absent until set (the default: any site).
	EmbedOrigins []string `dynamo:"embed_origins"`
	// PartialResponses: contract section 20.
	PartialResponses bool `dynamo:"partial_responses"`
	// Section 25: the response limit, and its allowances' generation and
	// base (survey.Settings).
	ResponseLimit        *int64 `dynamo:"response_limit"`
	ResponseLimitGen     int64  `dynamo:"response_limit_gen"`
	ResponseLimitBase    int64  `dynamo:"response_limit_base"`
	ResponseLimitPending bool   `dynamo:"response_limit_pending"`
}

func (it settingsItem) settings() survey.Settings {
	s := survey.Settings{
		ServiceAuth: it.ServiceAuth, ServiceAuthNoSpam: it.ServiceAuthNoSpam,
		PhoneNumberAuth: it.PhoneNumberAuth, PhoneNumberAuthIsUnique: it.PhoneNumberAuthIsUnique, PhoneNumbersLimited: it.PhoneNumbersLimited,
		ServiceAuthDomains: it.ServiceAuthDomains, CodeAuth: it.CodeAuth, CodeAuthIsUnique: it.CodeAuthIsUnique,
		CodeAuthenticationFileName: it.CodeAuthenticationFileName, AuthDescription: it.AuthDescription,
		CaptchaNeeded: it.CaptchaNeeded, HiddenResponderDetails: it.HiddenResponderDetails,
		PrivacyPreservingMessageEnabled: it.PrivacyPreservingMessageEnabled, NoSpam: it.NoSpam, TagSpam: it.TagSpam,
		LocationIsActive: it.LocationIsActive, LocationIsRequired: it.LocationIsRequired,
		LocationDescription: it.LocationDescription, HideNextButton: it.HideNextButton,
		HidePreviousButton: it.HidePreviousButton, HideProgressbar: it.HideProgressbar,
		RespondingDuration: it.RespondingDuration, EditResponseEnabled: it.EditResponseEnabled,
		BrandingRemoval: it.BrandingRemoval, RespondingDurationType: it.RespondingDurationType,
		QuestionsRespondingDuration: it.QuestionsRespondingDuration, EmbedOrigins: it.EmbedOrigins,
		ShowAnswerSheetEnabled: it.ShowAnswerSheetEnabled, ShowAnswerSheetToResponder: it.ShowAnswerSheetToResponder,
		ShowAnswerKeyAfterResponseSubmit: it.ShowAnswerKeyAfterResponseSubmit, ShowAnswerKeyAfterSurveyStop: it.ShowAnswerKeyAfterSurveyStop,
		PartialResponses: it.PartialResponses,
		ResponseLimit:    it.ResponseLimit, ResponseLimitGen: it.ResponseLimitGen, ResponseLimitBase: it.ResponseLimitBase,
		ResponseLimitPending: it.ResponseLimitPending,
	}
	// authentication_needed is derived; the attribute a survey stored
	// before section 18 is not read.
	s.AuthenticationNeeded = s.SignInNeeded()
	return s
}

// settingsAttr maps a settings field of the API to its attribute (the
// duration's API key has a space; its attribute does not).
func settingsAttr(field string) string {
	if field == "responding_ duration" {
		return "responding_duration"
	}
	return field
}

// SurveySettings reads a survey of the account and its settings in one
// strongly consistent BatchGetItem, with its layout, whose questions'
// durations make the read-only questions_responding_duration (contract
// section 15).
func (s *Store) SurveySettings(ctx context.Context, aid, sid int64) (survey.Survey, survey.Settings, error) {
	var items []dynamo.Item
	err := s.table.Batch(AttrPK, AttrSK).
		Get(dynamo.Keys{SurveyPK(sid), SurveySK}, dynamo.Keys{SurveyPK(sid), settingsSK}, dynamo.Keys{SurveyPK(sid), layoutSK}).
		Consistent(true).All(ctx, &items)
	if err != nil && !errors.Is(err, dynamo.ErrNotFound) {
		return survey.Survey{}, survey.Settings{}, s.fail(fmt.Sprintf("get settings of survey %d", sid), err)
	}
	var sv survey.Survey
	var st survey.Settings
	var l survey.Layout
	found := false
	for _, item := range items {
		switch skOf(item) {
		case SurveySK:
			if sv, err = decodeSurvey(item); err != nil {
				return survey.Survey{}, survey.Settings{}, err
			}
			found = true
		case settingsSK:
			var it settingsItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return survey.Survey{}, survey.Settings{}, fmt.Errorf("store: decode settings: %w", err)
			}
			st = it.settings()
		case layoutSK:
			var it layoutItem
			if err := dynamo.UnmarshalItem(item, &it); err != nil {
				return survey.Survey{}, survey.Settings{}, fmt.Errorf("store: decode layout: %w", err)
			}
			if l, err = it.layout(); err != nil {
				return survey.Survey{}, survey.Settings{}, err
			}
		}
	}
	if !found || sv.AccountID != aid {
		return survey.Survey{}, survey.Settings{}, survey.ErrNotFound
	}
	return sv, st.WithLayout(l), nil
}

// SettingsUpdate is a change of settings: Set holds the settings fields to
// write (API names; a nil value clears a string setting), and the survey's
// own fields are set when non-nil. Expiration, when Expire is true, sets
// the expiration date (or clears it when Expiration is "").
type SettingsUpdate struct {
	Set        map[string]any
	Name       *string
	Language   *int64
	IsStopped  *bool
	Expire     bool
	Expiration string
}

// UpdateSettings writes a change of settings of a survey of the account:
// only the fields named, in one transaction of the settings item and the
// survey item (which must be the account's and out of the trash). Setting
// an expiration date puts the survey in the sweep's sparse index (GSI2)
// and reopens it; clearing it takes it out; both in the same write.
func (s *Store) UpdateSettings(ctx context.Context, aid, sid int64, u SettingsUpdate) error {
	// The survey item is written by every change: the collection version
	// the public routes' cache checks moves with the settings (pubcache.go).
	sup := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(attrCollectionVersion, 1).If(surveyWritable, aid, false)
	if u.Name != nil {
		sup.Set("name", *u.Name)
	}
	if u.Language != nil {
		sup.Set("language", *u.Language)
	}
	if u.IsStopped != nil {
		sup.Set("is_stopped", *u.IsStopped)
	}
	if u.Expire {
		if u.Expiration == "" {
			sup.Remove("expiration_date", "closed", AttrGSI2PK, AttrGSI2SK)
		} else {
			sup.Set("expiration_date", u.Expiration).Set(AttrGSI2PK, ExpiryKey(sid)).
				Set(AttrGSI2SK, ExpirySK(u.Expiration, sid)).Remove("closed")
		}
	}
	// A response limit set where there was none is written pending, its
	// generation on the survey item and its state's copies (lg), where the
	// fence reads it; its base is counted below (limitbase.go). A limit
	// removed takes them away.
	limit, hasLimit := u.Set["response_limit"]
	gen, newGen := u.Set["response_limit_gen"]
	switch {
	case hasLimit && limit == nil:
		u.Set["response_limit_pending"] = nil
		sup.Remove(attrLimitGen)
	case newGen:
		u.Set["response_limit_pending"], u.Set["response_limit_base"] = true, 0
		sup.Set(attrLimitGen, gen)
	}
	// The read copies of the survey's state take the same change
	// (surveystate.go): a stop or an expiration date is seen at once by
	// the partial saves and the fence that read them.
	mirror := func(c *dynamo.Update) *dynamo.Update {
		addCV(c)
		switch {
		case hasLimit && limit == nil:
			c.Remove(attrLimitGen)
		case newGen:
			c.Set(attrLimitGen, gen)
		}
		if u.IsStopped != nil {
			c.Set("is_stopped", *u.IsStopped)
		}
		if u.Expire && u.Expiration == "" {
			c.Remove("expiration_date")
		} else if u.Expire {
			c.Set("expiration_date", u.Expiration)
		}
		return c
	}
	var up *dynamo.Update
	if len(u.Set) > 0 {
		up = s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, settingsSK)
		for field, v := range u.Set {
			if v == nil {
				up.Remove(settingsAttr(field))
			} else {
				up.Set(settingsAttr(field), v)
			}
		}
	}
	write := func() error { return s.writeSettings(ctx, aid, sid, up, sup, mirror) }
	if newGen {
		if err := write(); err != nil {
			return err
		}
		g, _ := anyInt(gen)
		b, err := s.settleLimit(ctx, sid, g, s.Now())
		if err != nil {
			return err // pending: the next request that needs the base counts it
		}
		return s.finishLimit(ctx, sid, g, b)
	}
	if !hasLimit || limit == nil {
		return write()
	}
	// A new limit where there was one: a change of its cap, exact under
	// racing submissions (rebase.go), from its base once counted.
	cur, err := s.readLimit(ctx, sid)
	if err != nil {
		return err
	}
	if cur.Limit != nil && cur.Pending {
		b, err := s.limitBaseOf(ctx, sid, cur.Gen)
		if err != nil {
			return err
		}
		if err := s.finishLimit(ctx, sid, cur.Gen, b); err != nil {
			return err
		}
		cur.Base = b.Base
	}
	n, isInt := anyInt(limit)
	if cur.Limit == nil || !isInt || n == *cur.Limit {
		return write()
	}
	next := survey.Settings{ResponseLimit: &n, ResponseLimitGen: cur.Gen, ResponseLimitBase: cur.Base}
	return s.ChangeCap(ctx, sid, LimitCap(next), write)
}

// writeSettings is UpdateSettings' transaction.
func (s *Store) writeSettings(ctx context.Context, aid, sid int64, up, sup *dynamo.Update, mirror func(*dynamo.Update) *dynamo.Update) error {
	// The survey item is also written by the tally (its counts: a
	// transaction per stream batch, per stream shard) and by other owner
	// writes: a transaction lost to one of those (TransactionConflict) is
	// tried again; every attempt writes the same values, so a retry changes
	// nothing twice.
	started := time.Now()
	for attempt := 1; ; attempt++ {
		tx := s.db.WriteTx() // fresh each try (runTx adds to it)
		if up != nil {
			tx.Update(up)
		}
		err := s.runTx(ctx, s.mirrorState(tx.Update(sup), sid, mirror))
		switch {
		case err == nil:
			return nil
		case dynamo.IsCondCheckFailed(err):
			return s.whyNotWritable(ctx, aid, sid)
		case retryOwnerConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail(fmt.Sprintf("update settings of survey %d", sid), err)
	}
}
