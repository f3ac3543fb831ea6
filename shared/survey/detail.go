package survey

import "time"

// SettingsSummary is the part of a survey's settings its detail shows.
type SettingsSummary struct {
	AuthenticationNeeded             bool    `json:"authentication_needed"`
	ServiceAuth                      bool    `json:"service_auth"`
	CodeAuth                         bool    `json:"code_auth"`
	EditResponseEnabled              bool    `json:"edit_response_enabled"`
	ShowAnswerSheetEnabled           bool    `json:"show_answer_sheet_enabled"`
	ShowAnswerSheetToResponder       bool    `json:"show_answer_sheet_to_responder"`
	ShowAnswerKeyAfterResponseSubmit bool    `json:"show_answer_key_after_response_submit"`
	ShowAnswerKeyAfterSurveyStop     bool    `json:"show_answer_key_after_survey_stop"`
	PhoneNumberAuth                  bool    `json:"phone_number_auth"`
	PhoneNumberAuthIsUnique          bool    `json:"phone_number_auth_is_unique"`
	PhoneNumbersLimited              bool    `json:"phone_numbers_limited"`
	RespondingDurationType           int     `json:"responding_duration_type"`
	QuestionsRespondingDuration      *string `json:"questions_responding_duration"`
}

// SurveyDetail is a survey as GET /api/v2/surveys/{id}/ answers it: the
// specification's fields, plus id, url_slug, created_date, is_stopped and
// expiration_date so that a client knows what it created.
type SurveyDetail struct {
	ID                 int64      `json:"id"`
	Name               string     `json:"name"`
	FolderID           int64      `json:"folder_id"`
	Language           string     `json:"language"`
	URLSlug            string     `json:"url_slug"`
	CreatedDate        string     `json:"created_date"`
	Active             bool       `json:"active"`
	Closed             bool       `json:"closed"`
	Deleted            bool       `json:"deleted"`
	IsStopped          bool       `json:"is_stopped"`
	ExpirationDate     *string    `json:"expiration_date"`
	PreviewCode        string     `json:"preview_code"`
	ReportCode         string     `json:"report_code"`
	SubmittedResponses int64      `json:"submitted_responses"`
	Views              int64      `json:"views"`
	IsTemplate         bool       `json:"is_template"`
	QuestionCount      int        `json:"question_count"`
	Theme              Theme      `json:"theme"`
	Subdomain          *Subdomain `json:"subdomain"`
	// CustomURLs are the survey's addresses on its account's active custom
	// domains, [] without one (contract section 23).
	CustomURLs []string `json:"custom_urls"`
	SharedBy   Profile  `json:"shared_by"`
	// UpdatedBy is the member who wrote last under the survey, nil for
	// the owner; UpdatedAt when (contract section 19).
	UpdatedBy     *UpdatedBy      `json:"updated_by"`
	UpdatedAt     string          `json:"updated_at"`
	Settings      SettingsSummary `json:"settings"`
	Questions     [][]ElementView `json:"questions"`
	Variables     []Variable      `json:"variables"`
	Welcome       []ElementView   `json:"welcome"`
	Appreciations []ElementView   `json:"appreciations"`

	// PartialResponsesCount is the survey's partial responses (contract
	// section 20), exact within seconds.
	PartialResponsesCount int64 `json:"partial_responses_count"`
}

// Detail returns the survey's detail at now, owned by owner, with its
// elements where the layout places them: welcome pages, questions as pages
// (see Layout.Pages), appreciation pages.
func (s Survey) Detail(now time.Time, owner Profile, l Layout, elements map[int64]Element) SurveyDetail {
	lang, _ := LanguageCode(s.Language)
	var exp *string
	if s.ExpirationDate != "" {
		e := s.ExpirationDate
		exp = &e
	}
	d := SurveyDetail{
		ID: s.ID, Name: s.Name, FolderID: s.FolderID, Language: lang, URLSlug: s.URLSlug,
		CreatedDate: s.Created.UTC().Format(TimestampLayout), Active: s.Active(now), Closed: s.Closed(now),
		Deleted: s.Deleted, IsStopped: s.IsStopped, ExpirationDate: exp, PreviewCode: s.PreviewCode,
		ReportCode: s.ReportCode, SubmittedResponses: s.SubmittedResponses, Views: s.Views, PartialResponsesCount: s.PartialResponses,
		IsTemplate: s.IsTemplate, QuestionCount: s.QuestionCount, Theme: s.Theme, SharedBy: owner,
		UpdatedAt: s.Created.UTC().Format(TimestampLayout),
		Questions: [][]ElementView{}, Variables: []Variable{},
		Welcome: views(l, l.Welcome, elements, false), Appreciations: views(l, l.Appreciations, elements, false),
	}
	for _, page := range l.Pages() {
		d.Questions = append(d.Questions, views(l, page, elements, true))
	}
	d.QuestionCount = l.QuestionCount()
	return d
}

// views renders the elements of ids that exist, in order; questions carry
// their (empty) logic.
func views(l Layout, ids []int64, elements map[int64]Element, logic bool) []ElementView {
	out := make([]ElementView, 0, len(ids))
	for _, id := range ids {
		e, ok := elements[id]
		if !ok {
			continue
		}
		v := e.View(l)
		if logic {
			first := e.FirstRule()
			v.Logic = &first
		}
		out = append(out, v)
	}
	return out
}
