package survey

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"golang.org/x/net/idna"
)

// Settings is a survey's settings object, except its `survey` part (name,
// language, is_stopped) and expiration_date, which live on the survey.
// String settings are nil until set; null clears them.
type Settings struct {
	// AuthenticationNeeded is derived (SignInNeeded), never stored on its
	// own: it cannot contradict the methods (section 18).
	AuthenticationNeeded            bool     `json:"authentication_needed"`
	ServiceAuth                     bool     `json:"service_auth"`
	ServiceAuthNoSpam               bool     `json:"service_auth_no_spam"`
	ServiceAuthDomains              []string `json:"service_auth_domains"`
	PhoneNumberAuth                 bool     `json:"phone_number_auth"`
	PhoneNumberAuthIsUnique         bool     `json:"phone_number_auth_is_unique"`
	PhoneNumbersLimited             bool     `json:"phone_numbers_limited"`
	CodeAuth                        bool     `json:"code_auth"`
	CodeAuthIsUnique                bool     `json:"code_auth_is_unique"`
	CodeAuthenticationFileName      *string  `json:"code_authentication_file_name"`
	AuthDescription                 *string  `json:"auth_description"`
	CaptchaNeeded                   bool     `json:"captcha_needed"`
	HiddenResponderDetails          bool     `json:"hidden_responder_details"`
	PrivacyPreservingMessageEnabled bool     `json:"privacy_preserving_message_enabled"`
	NoSpam                          bool     `json:"no_spam"`
	TagSpam                         bool     `json:"tag_spam"`
	LocationIsActive                bool     `json:"location_is_active"`
	LocationIsRequired              bool     `json:"location_is_required"`
	LocationDescription             *string  `json:"location_description"`
	HideNextButton                  bool     `json:"hide_next_button"`
	HidePreviousButton              bool     `json:"hide_previous_button"`
	HideProgressbar                 bool     `json:"hide_progressbar"`
	RespondingDuration              *string  `json:"responding_ duration"`
	EditResponseEnabled             bool     `json:"edit_response_enabled"`
	BrandingRemoval                 bool     `json:"branding_removal"`
	RespondingDurationType          int64    `json:"responding_duration_type"`
	// Quizzes (contract section 15).
	ShowAnswerSheetEnabled           bool    `json:"show_answer_sheet_enabled"`
	ShowAnswerSheetToResponder       bool    `json:"show_answer_sheet_to_responder"`
	ShowAnswerKeyAfterResponseSubmit bool    `json:"show_answer_key_after_response_submit"`
	ShowAnswerKeyAfterSurveyStop     bool    `json:"show_answer_key_after_survey_stop"`
	QuestionsRespondingDuration      *string `json:"questions_responding_duration"`
	// EmbedOrigins are the sites that may show the responder's page in a
	// frame (embed.go); nil is the default, any site.
	EmbedOrigins []string `json:"embed_origins"`
	// PartialResponses keeps responders' unfinished answers for the owner
	// (contract section 20).
	PartialResponses bool `json:"partial_responses"`
	// ResponseLimit closes the survey after that many responses, exactly
	// (contract section 25); nil: no limit. ResponseLimitGen names the
	// limit's counters in its allowances, new each time a limit is set
	// where there was none, and ResponseLimitBase is the responses
	// recorded then, which hold their places without an allowance.
	// ResponseLimitPending marks a limit whose base is being counted
	// (store/limitbase.go): its places are not known yet.
	ResponseLimit        *int64 `json:"response_limit"`
	ResponseLimitGen     int64  `json:"-"`
	ResponseLimitBase    int64  `json:"-"`
	ResponseLimitPending bool   `json:"-"`
}

// SignInNeeded is authentication_needed as section 18 reads it: a
// responder signs in exactly when one of the three methods is on.
func (s Settings) SignInNeeded() bool { return s.ServiceAuth || s.PhoneNumberAuth || s.CodeAuth }

// SettingsView is the settings object as GET and PATCH answer it.
type SettingsView struct {
	Survey         SettingsSurvey `json:"survey"`
	ExpirationDate *string        `json:"expiration_date"`
	Settings
}

// SettingsSurvey is the part of the settings that is the survey's own.
type SettingsSurvey struct {
	Name      string `json:"name"`
	Language  int64  `json:"language"`
	IsStopped bool   `json:"is_stopped"`
}

// View renders the settings of sv.
func (s Settings) View(sv Survey) SettingsView {
	if s.ServiceAuthDomains == nil {
		s.ServiceAuthDomains = []string{}
	}
	s.EmbedOrigins = s.Embedders()
	var exp *string
	if sv.ExpirationDate != "" {
		e := sv.ExpirationDate
		exp = &e
	}
	return SettingsView{
		Survey:         SettingsSurvey{Name: sv.Name, Language: sv.Language, IsStopped: sv.IsStopped},
		ExpirationDate: exp, Settings: s,
	}
}

// Summary is the part of the settings a survey detail shows, with the
// read-only questions_responding_duration computed from the layout l (as
// the settings' own view shows it: WithLayout).
func (s Settings) Summary(l Layout) SettingsSummary {
	s = s.WithLayout(l)
	return SettingsSummary{
		AuthenticationNeeded: s.AuthenticationNeeded, ServiceAuth: s.ServiceAuth, CodeAuth: s.CodeAuth,
		EditResponseEnabled: s.EditResponseEnabled, RespondingDurationType: int(s.RespondingDurationType),
		ShowAnswerSheetEnabled: s.ShowAnswerSheetEnabled, ShowAnswerSheetToResponder: s.ShowAnswerSheetToResponder,
		ShowAnswerKeyAfterResponseSubmit: s.ShowAnswerKeyAfterResponseSubmit, ShowAnswerKeyAfterSurveyStop: s.ShowAnswerKeyAfterSurveyStop,
		QuestionsRespondingDuration: s.QuestionsRespondingDuration,
		PhoneNumberAuth:             s.PhoneNumberAuth, PhoneNumberAuthIsUnique: s.PhoneNumberAuthIsUnique,
		PhoneNumbersLimited: s.PhoneNumbersLimited,
	}
}

// Setting limits, from the specification.
const (
	MaxAuthDomain        = 60
	MaxCodeAuthFileName  = 500
	MaxAuthDescription   = 1000
	MaxLocationDesc      = 1000
	MaxRespondingDurType = 2
)

// MaxAuthDomains bounds service_auth_domains (ours; the specification sets
// none): the settings item stays far under DynamoDB's 400 KB, and the
// errors of a bad list, one per item, fit an answer (a 1 MiB list of
// numbers, 524,288 items, would make some 17 MB of them).
const MaxAuthDomains = 100

// PlanNeeded is the plan table: which settings field needs which plan. A
// field not listed is on every plan. It is the one place that says it.
var PlanNeeded = map[string]Plan{
	"authentication_needed":                 PlanEnterprise,
	"service_auth":                          PlanEnterprise,
	"service_auth_no_spam":                  PlanEnterprise,
	"service_auth_domains":                  PlanEnterprise,
	"phone_number_auth":                     PlanEnterprise,
	"phone_number_auth_is_unique":           PlanEnterprise,
	"phone_numbers_limited":                 PlanEnterprise,
	"code_auth":                             PlanEnterprise,
	"code_auth_is_unique":                   PlanEnterprise,
	"code_authentication_file_name":         PlanEnterprise,
	"auth_description":                      PlanEnterprise,
	"captcha_needed":                        PlanEnterprise,
	"hidden_responder_details":              PlanEnterprise,
	"privacy_preserving_message_enabled":    PlanEnterprise,
	"no_spam":                               PlanPro,
	"tag_spam":                              PlanPro,
	"location_is_active":                    PlanEnterprise,
	"location_is_required":                  PlanEnterprise,
	"location_description":                  PlanEnterprise,
	"edit_response_enabled":                 PlanEnterprise,
	"branding_removal":                      PlanEnterprise,
	"show_answer_sheet_enabled":             PlanPro,
	"show_answer_sheet_to_responder":        PlanPro,
	"show_answer_key_after_response_submit": PlanPro,
	"show_answer_key_after_survey_stop":     PlanPro,
	"partial_responses":                     PlanPro,
	"response_limit":                        PlanPro,
}

// PlanRefusal is the 403 of a change to settings the plan does not
// include: changed names the fields whose value would change.
func PlanRefusal(plan Plan, changed []string) error {
	sort.Strings(changed)
	parts := make([]string, len(changed))
	for i, f := range changed {
		parts[i] = fmt.Sprintf("%s (needs the %s plan)", f, PlanNeeded[f])
	}
	return Errorf(EFORBIDDEN, "Your %s plan does not include these settings: %s.", plan, strings.Join(parts, ", "))
}

// domainLabel is one label of a domain name (after IDNA conversion).
var domainLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// ValidAuthDomain reports whether s is `*@<domain>` with a domain name of
// two or more labels; Unicode domains are accepted (checked in their IDNA
// form). The length limit is checked by the caller.
func ValidAuthDomain(s string) bool {
	domain, ok := strings.CutPrefix(s, "*@")
	if !ok || domain == "" {
		return false
	}
	ascii, err := idna.Lookup.ToASCII(domain)
	if err != nil {
		return false
	}
	labels := strings.Split(ascii, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if !domainLabel.MatchString(l) {
			return false
		}
	}
	tld := labels[len(labels)-1]
	return strings.HasPrefix(tld, "xn--") || strings.Trim(tld, "0123456789") != ""
}

// ParseDate reads a YYYY-MM-DD date that exists (2026-02-30 does not).
func ParseDate(s string) (time.Time, bool) {
	if len(s) != len(DateLayout) {
		return time.Time{}, false
	}
	t, err := time.Parse(DateLayout, s)
	return t, err == nil
}

// Today is the UTC date of now, as YYYY-MM-DD.
func Today(now time.Time) string { return now.UTC().Format(DateLayout) }
