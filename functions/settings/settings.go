package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// Settings fields by kind, with their API names.
var (
	boolFields = []string{
		"authentication_needed", "service_auth", "service_auth_no_spam", "code_auth", "code_auth_is_unique",
		"phone_number_auth", "phone_number_auth_is_unique", "phone_numbers_limited",
		"captcha_needed", "hidden_responder_details", "privacy_preserving_message_enabled", "no_spam", "tag_spam",
		"location_is_active", "location_is_required", "hide_next_button", "hide_previous_button",
		"hide_progressbar", "edit_response_enabled", "branding_removal",
		"show_answer_sheet_enabled", "show_answer_sheet_to_responder", "show_answer_key_after_response_submit",
		"show_answer_key_after_survey_stop", "partial_responses",
	}
	stringFields = map[string]int{
		"code_authentication_file_name": survey.MaxCodeAuthFileName,
		"auth_description":              survey.MaxAuthDescription,
		"location_description":          survey.MaxLocationDesc,
	}
	// questions_responding_duration is read-only (contract section 15):
	// a write of it is ignored, as DRF ignores read-only fields.
	durationFields = []string{"responding_ duration"}
)

const msgDuration = "Duration has wrong format. Use one of these formats instead: HH:MM:SS (minutes and seconds below 60)."

// patch is a validated settings PATCH.
type patch struct {
	set        map[string]any // settings fields, API names; nil clears
	name       *string
	language   *int64
	isStopped  *bool
	expire     bool
	expiration string // "" clears
}

// readPatch validates every field of the body. The survey is needed only to
// accept an expiration date that is unchanged (a GET-then-PATCH round trip
// of a survey that has expired): with checkPast false (the pass before the
// survey is read) a date of today or earlier is not judged yet.
func readPatch(body map[string]json.RawMessage, sv survey.Survey, today string, checkPast bool) (patch, error) {
	f := api.NewForm(body)
	p := patch{set: map[string]any{}}
	for _, name := range boolFields {
		if v, ok := f.Bool(name, false); ok {
			p.set[name] = v
		}
	}
	for name, max := range stringFields {
		if f.IsNull(name) {
			p.set[name] = nil
		} else if v, ok := f.String(name, api.Str{Max: max}); ok {
			p.set[name] = v
		}
	}
	for _, name := range durationFields {
		if f.IsNull(name) {
			p.set[name] = nil
		} else if v, ok := f.String(name, api.Str{}); ok {
			if survey.ValidDuration(v) {
				p.set[name] = v
			} else {
				f.Fail(name, msgDuration)
			}
		}
	}
	if v, ok := f.Int("responding_duration_type", api.Int{Min: api.Bound(0), Max: api.Bound(survey.MaxRespondingDurType)}); ok {
		p.set["responding_duration_type"] = v
	}
	if f.IsNull("response_limit") {
		p.set["response_limit"] = nil
	} else if v, ok := f.Int("response_limit", api.Int{Min: api.Bound(1), Max: api.Bound(survey.MaxResponseLimit)}); ok {
		p.set["response_limit"] = v
	}
	if domains, ok := readDomains(f); ok {
		p.set["service_auth_domains"] = domains
	}
	if f.IsNull("embed_origins") {
		p.set["embed_origins"] = nil // back to the default, any site
	} else if origins, ok := readOrigins(f); ok {
		p.set["embed_origins"] = origins
	}
	if f.IsNull("expiration_date") {
		p.expire = true
	} else if v, ok := f.String("expiration_date", api.Str{}); ok {
		_, valid := survey.ParseDate(v)
		switch {
		case !valid:
			f.Fail("expiration_date", "Date has wrong format. Use one of these formats instead: YYYY-MM-DD.")
		case v == sv.ExpirationDate: // unchanged: nothing to write
		case v <= today && !checkPast:
		case v <= today:
			f.Fail("expiration_date", "Ensure this date is after today.")
		default:
			p.expire, p.expiration = true, v
		}
	}
	if f.IsNull("survey") {
		f.Fail("survey", api.MsgNull)
	} else if raw, ok := f.Raw("survey"); ok {
		readSurvey(f, raw, &p)
	}
	return p, f.Err()
}

// readOrigins reads embed_origins: 1 to 20 origins, or ["*"] (contract
// section 17), normalized as browsers serialize origins.
func readOrigins(f *api.Form) ([]string, bool) {
	const name = "embed_origins"
	raw, ok := f.Raw(name)
	if !ok {
		return nil, false
	}
	if api.JSONKind(raw) != "list" {
		f.Fail(name, survey.MsgNotAList(api.JSONKind(raw)))
		return nil, false
	}
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items)
	in := make([]string, len(items))
	bad := map[string]any{}
	for i, it := range items {
		if json.Unmarshal(it, &in[i]) != nil {
			bad[strconv.Itoa(i)] = []string{api.MsgNotString}
		}
	}
	if len(bad) > 0 {
		f.FailNested(name, bad)
		return nil, false
	}
	out, itemErrs, listErr := survey.CheckEmbedOrigins(in)
	switch {
	case listErr != "":
		f.Fail(name, listErr)
		return nil, false
	case itemErrs != nil:
		f.FailNested(name, itemErrs)
		return nil, false
	}
	return out, true
}

// readDomains reads service_auth_domains: a list of `*@<domain>` of 1-60
// characters; null means [].
func readDomains(f *api.Form) ([]string, bool) {
	const name = "service_auth_domains"
	raw, ok := f.Raw(name)
	if !ok {
		return nil, false
	}
	if f.IsNull(name) {
		return []string{}, true
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		f.Fail(name, survey.MsgNotAList(api.JSONKind(raw)))
		return nil, false
	}
	if len(items) > survey.MaxAuthDomains {
		f.Fail(name, fmt.Sprintf("Ensure this field has no more than %d elements.", survey.MaxAuthDomains))
		return nil, false
	}
	out := make([]string, 0, len(items))
	errs := map[string]any{}
	for i, item := range items {
		var s string
		if json.Unmarshal(item, &s) != nil {
			errs[strconv.Itoa(i)] = []string{api.MsgNotString}
			continue
		}
		s = strings.TrimSpace(s)
		switch n := utf8.RuneCountInString(s); {
		case n == 0:
			errs[strconv.Itoa(i)] = []string{api.MsgBlank}
		case n > survey.MaxAuthDomain:
			errs[strconv.Itoa(i)] = []string{fmt.Sprintf("Ensure this field has no more than %d characters.", survey.MaxAuthDomain)}
		case strings.IndexByte(s, 0) >= 0: // section 3: as every string field
			errs[strconv.Itoa(i)] = []string{api.MsgNullCharacter}
		case !survey.ValidAuthDomain(s):
			errs[strconv.Itoa(i)] = []string{"Enter a pattern of the form *@example.com."}
		default:
			out = append(out, s)
		}
	}
	if len(errs) > 0 {
		f.FailNested(name, errs)
		return nil, false
	}
	return out, true
}

// readSurvey reads the survey object: name, language, is_stopped, each
// optional; errors nest under "survey".
func readSurvey(f *api.Form, raw json.RawMessage, p *patch) {
	if kind := api.JSONKind(raw); kind != "dict" {
		f.FailNested("survey", map[string]any{"non_field_errors": []string{survey.MsgNotADict(kind)}})
		return
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(raw, &obj)
	inner := api.NewForm(obj)
	if v, ok := inner.String("name", api.Str{Max: survey.MaxSurveyName}); ok {
		p.name = &v
	}
	if v, ok := inner.Int("language", api.Int{}); ok {
		if _, known := survey.LanguageCode(v); known {
			p.language = &v
		} else {
			inner.Fail("language", fmt.Sprintf("%q is not a valid choice.", strconv.FormatInt(v, 10)))
		}
	}
	if v, ok := inner.Bool("is_stopped", false); ok {
		p.isStopped = &v
	}
	if err := inner.Err(); err != nil {
		var e *survey.Error
		if errors.As(err, &e) {
			f.FailNested("survey", e.Fields)
		}
	}
}

// apply returns the settings with the patch's fields set, by their API
// names (a JSON round trip through the struct's own tags).
func apply(s survey.Settings, set map[string]any) (survey.Settings, error) {
	m := map[string]any{}
	b, err := json.Marshal(s)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return s, err
	}
	for k, v := range set {
		m[k] = v
	}
	b, err = json.Marshal(m)
	if err != nil {
		return s, err
	}
	var out survey.Settings
	err = json.Unmarshal(b, &out)
	return out, err
}

// refused lists the gated fields the patch would change that the plan does
// not include; a gated field sent with the value it has is not a change.
func refused(plan survey.Plan, cur, next survey.Settings, set map[string]any) []string {
	curM, nextM := asMap(cur), asMap(next)
	var out []string
	for field := range set {
		need, gated := survey.PlanNeeded[field]
		if !gated || plan.Includes(need) {
			continue
		}
		if !reflect.DeepEqual(normalize(curM[field]), normalize(nextM[field])) {
			out = append(out, field)
		}
	}
	return out
}

func asMap(s survey.Settings) map[string]any {
	m := map[string]any{}
	b, _ := json.Marshal(s)
	_ = json.Unmarshal(b, &m)
	return m
}

// normalize makes null and [] the same list (service_auth_domains).
func normalize(v any) any {
	if l, ok := v.([]any); ok && len(l) == 0 {
		return nil
	}
	return v
}

func (h handlers) get() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		sv, st, err := h.st.SurveySettings(r.Context(), acct.ID, sid)
		if err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, answer(st, sv))
		return nil
	})
}

// update validates the whole body (400), reads the survey and its settings
// once, refuses gated changes the plan does not include (403, nothing
// written), then writes only the fields given in one transaction.
func (h handlers) update() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		acct, sid, err := api.AccountAndID(r, "survey_id")
		if err != nil {
			return err
		}
		body, err := api.DecodeObject(r, api.MaxBody)
		if err != nil {
			return err
		}
		today := survey.Today(h.now())
		// Validate before any read: a bad body is 400 whoever owns the id.
		if _, err := readPatch(body, survey.Survey{}, today, false); err != nil {
			return err
		}
		sv, cur, err := h.st.SurveySettings(r.Context(), acct.ID, sid)
		if err != nil {
			return err
		}
		p, err := readPatch(body, sv, today, true)
		if err != nil {
			return err
		}
		next, err := apply(cur, p.set)
		if err != nil {
			return err
		}
		if gated := refused(acct.Plan, cur, next, p.set); len(gated) > 0 {
			return survey.PlanRefusal(acct.Plan, gated)
		}
		// authentication_needed is checked against the plan above, as any
		// gated field, and otherwise ignored: it is derived (section 18).
		delete(p.set, "authentication_needed")
		next.AuthenticationNeeded = next.SignInNeeded()
		if v, ok := p.set["response_limit"]; ok && v != nil && cur.ResponseLimit == nil {
			// A limit where there was none: new counters in the
			// allowances, and the responses recorded before it hold their
			// places without one, counted exactly once submissions in
			// flight have settled (contract section 25;
			// store/limitbase.go).
			p.set["response_limit_gen"] = h.now().UnixNano()
		}
		u := store.SettingsUpdate{Set: p.set, Name: p.name, Language: p.language, IsStopped: p.isStopped,
			Expire: p.expire, Expiration: p.expiration}
		if err := h.st.UpdateSettings(r.Context(), acct.ID, sid, u); err != nil {
			return err
		}
		if p.name != nil {
			sv.Name = *p.name
		}
		if p.language != nil {
			sv.Language = *p.language
		}
		if p.isStopped != nil {
			sv.IsStopped = *p.isStopped
		}
		if p.expire {
			sv.ExpirationDate = p.expiration
		}
		api.Respond(w, r, http.StatusOK, answer(next, sv))
		return nil
	})
}

// answer is the settings answer of s on survey sv. The sign-in settings
// are enforced (contract section 18), so the answer no longer flags them.
func answer(s survey.Settings, sv survey.Survey) survey.SettingsView { return s.View(sv) }
