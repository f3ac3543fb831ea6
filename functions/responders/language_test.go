package responders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/sending"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// storedLanguage is the lang attribute of a stored response item.
func (f fixture) storedLanguage(tb testing.TB, sid, rid int64) (string, bool) {
	tb.Helper()
	var it struct {
		Lang *string `dynamo:"lang"`
	}
	err := f.db().Table(f.st.TableName()).Get(store.AttrPK, store.ResponsesShardPK(sid, store.ResponseShard(rid))).
		Range(store.AttrSK, dynamo.Equal, store.ResponseSK(rid)).Consistent(true).One(context.Background(), &it)
	if err != nil {
		tb.Fatalf("response %d: %v", rid, err)
	}
	if it.Lang == nil {
		return "", false
	}
	return *it.Lang, true
}

// TestSessionLanguage: contract section 24. The sessions route takes an
// optional language, one of the survey's (its default or one of its other
// languages); anything else is a 400 on language that changes nothing and
// spends no captcha. The session carries its language, and the response
// records it as the code string (the survey's own when none was named);
// the owner's view shows it.
func TestSessionLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, nil) // a fa survey
	q := f.textQuestion(t, sid, "Name", false)
	if err := f.st.SetLanguages(ctx, f.aid, sid, []string{"en", "ar"}); err != nil {
		t.Fatal(err)
	}
	const notOurs = `{"language":["Not one of this survey's languages."]}`
	for _, tc := range []struct {
		name string
		lang any
		code int
		body string
	}{
		{"a page language the survey does not speak", "tr", 400, notOurs},
		{"not a language at all", "de", 400, notOurs},
		{"a tag, not a code", "en-US", 400, notOurs},
		{"upper case", "EN", 400, notOurs},
		{"not a string", 4, 400, `{"language":["Not a valid string."]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.startSession(t, slug, map[string]any{"language": tc.lang}).is(t, tc.code, tc.body)
		})
	}
	f.wantStored(t, "after the refusals", sid, 0)

	for i, tc := range []struct {
		name string
		body map[string]any
		want string // the response's language
	}{
		{"a translation", map[string]any{"language": "en"}, "en"},
		{"another translation", map[string]any{"language": "ar"}, "ar"},
		{"the default named", map[string]any{"language": "fa"}, "fa"},
		{"none: the survey's", nil, "fa"},
		{"null: the survey's", map[string]any{"language": nil}, "fa"},
		{"blank: the survey's", map[string]any{"language": " "}, "fa"},
	} {
		token := f.session(t, slug, tc.body)
		// The survey's own language is sealed as "" (no flag).
		if got, want := f.open(t, sid, token).Language, strings.TrimPrefix(tc.want, "fa"); got != want {
			t.Errorf("%s: the session's language %q, want %q", tc.name, got, want)
		}
		s := f.respond(t, slug, token, map[string]any{strconv.FormatInt(q, 10): "x"}).submitted(t)
		if got, ok := f.storedLanguage(t, sid, s.ID); !ok || got != tc.want {
			t.Errorf("%s: stored lang %q (%v), want %q", tc.name, got, ok, tc.want)
		}
		resp, err := f.st.Response(ctx, f.aid, sid, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if v := resp.View(); v.Language == nil || *v.Language != tc.want {
			t.Errorf("%s: the owner's view's language %v, want %q", tc.name, v.Language, tc.want)
		}
		f.wantStored(t, tc.name, sid, i+1)
	}

	// A language taken out of the survey is no longer one of its.
	if err := f.st.SetLanguages(ctx, f.aid, sid, []string{"ar"}); err != nil {
		t.Fatal(err)
	}
	f.startSession(t, slug, map[string]any{"language": "en"}).is(t, 400, notOurs)
}

// TestSessionLanguageSpendsNothing: a bad language is refused before the
// captcha of a captcha_needed survey is spent: the same solution then
// starts a session in a good one.
func TestSessionLanguageSpendsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid := f.survey(t, map[string]any{"captcha_needed": true})
	if err := f.st.SetLanguages(context.Background(), f.aid, sid, []string{"en"}); err != nil {
		t.Fatal(err)
	}
	sol := f.solved(t, slug)
	f.startSession(t, slug, map[string]any{"captcha": sol, "language": "tr"}).is(t, 400, `{"language":["Not one of this survey's languages."]}`)
	token := f.session(t, slug, map[string]any{"captcha": sol, "language": "en"})
	if got := f.open(t, sid, token).Language; got != "en" {
		t.Errorf("the session's language %q, want en", got)
	}
	f.startSession(t, slug, map[string]any{"captcha": sol, "language": "en"}).is(t, 400, `{"captcha":["Invalid challenge."]}`)
}

// TestQuotaCountsEveryLanguage (contract sections 24 and 25): a quota is
// on choice ids, so answers given in different languages count alike: a
// quota of 2 on A filled by a response in en and one in fa (the default)
// refuses a third in ar, 410, and the survey stores two.
func TestQuotaCountsEveryLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, nil) // a fa survey
	q := f.choiceQuestion(t, sid, survey.TypeMultipleChoice, -1, "A", "B")
	if err := f.st.SetLanguages(ctx, f.aid, sid, []string{"en", "ar"}); err != nil {
		t.Fatal(err)
	}
	a := q.Choices[0].ID
	if _, err := f.st.CreateQuota(ctx, f.aid, sid, survey.Quota{Name: "A", Limit: 2,
		Conditions: []survey.QuotaCondition{{Question: q.ID, Choices: []int64{a}}}}); err != nil {
		t.Fatal(err)
	}
	key := strconv.FormatInt(q.ID, 10)
	for _, lang := range []string{"en", "fa"} {
		f.respond(t, slug, f.session(t, slug, map[string]any{"language": lang}), map[string]any{key: []int64{a}}).submitted(t)
	}
	f.respond(t, slug, f.session(t, slug, map[string]any{"language": "ar"}), map[string]any{key: []int64{a}}).is(t, 410, quotaFullBody)
	f.wantStored(t, "a quota of 2 over three languages", sid, 2)
}

// TestSheetInTheResponseLanguage (contract sections 15 and 24): the answer
// sheet a response answers with is in the language it was given in, its
// titles translated where they are and the default's elsewhere; a
// response in the default reads the default's.
func TestSheetInTheResponseLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, map[string]any{"show_answer_sheet_enabled": true, "show_answer_sheet_to_responder": true,
		"show_answer_key_after_response_submit": true}) // a fa survey
	q1 := f.choiceQuestion(t, sid, survey.TypeMultipleChoice, 0, "سه", "چهار")
	q2 := f.choiceQuestion(t, sid, survey.TypeDropdown, 0, "تهران", "شیراز")
	if err := f.st.SetLanguages(ctx, f.aid, sid, []string{"en"}); err != nil {
		t.Fatal(err)
	}
	c, err := f.st.SurveyCollection(ctx, f.aid, sid)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := survey.DecodeTranslation(map[string]json.RawMessage{"elements": json.RawMessage(`{"` + strconv.FormatInt(q1.ID, 10) + `":{"title":"Three?"}}`)},
		c.Survey.Name, c.Elements)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.PutTranslation(ctx, f.aid, sid, "en", tr); err != nil {
		t.Fatal(err)
	}
	answers := map[string]any{strconv.FormatInt(q1.ID, 10): []int64{q1.Choices[0].ID}, strconv.FormatInt(q2.ID, 10): q2.Choices[1].ID}
	for _, tc := range []struct{ lang, first, second string }{
		{"en", "Three?", q2.Title},
		{"fa", q1.Title, q2.Title},
	} {
		r := f.respond(t, slug, f.session(t, slug, map[string]any{"language": tc.lang}), answers)
		var got struct {
			Sheet survey.Sheet `json:"sheet"`
		}
		if r.code != 201 || json.Unmarshal([]byte(r.body), &got) != nil || len(got.Sheet.Questions) != 2 {
			t.Fatalf("%s: %d %s", tc.lang, r.code, r.body)
		}
		if got.Sheet.Questions[0].Title != tc.first || got.Sheet.Questions[1].Title != tc.second {
			t.Errorf("the sheet of a response in %s: titles %q, %q; want %q, %q", tc.lang,
				got.Sheet.Questions[0].Title, got.Sheet.Questions[1].Title, tc.first, tc.second)
		}
	}
}

// TestVerifyCodeInSessionLanguage (contract sections 18 and 24): the
// message that carries a sign-in code is in the language the responder's
// session was started in, naming the survey in it (its default's name
// where it has none); a session in the default, or started without a
// language, reads the default.
func TestVerifyCodeInSessionLanguage(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, sending.DefaultLimits)
	ctx := context.Background()
	slug, sid := v.survey(t, map[string]any{"service_auth": true, "service_auth_domains": []string{"*@company.example"}}) // a fa survey
	if err := v.st.SetLanguages(ctx, v.aid, sid, []string{"en", "ar"}); err != nil {
		t.Fatal(err)
	}
	c, err := v.st.SurveyCollection(ctx, v.aid, sid)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := survey.DecodeTranslation(map[string]json.RawMessage{"survey": json.RawMessage(`{"name":"Signed"}`)}, c.Survey.Name, c.Elements)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.st.PutTranslation(ctx, v.aid, sid, "en", tr); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		name    string
		session map[string]any
		want    []string // in the subject and the body
	}{
		{"en", map[string]any{"language": "en"}, []string{"Your code", "“Signed”"}},
		{"ar, its name untranslated", map[string]any{"language": "ar"}, []string{"رمزك", "«" + c.Survey.Name + "»"}},
		{"the default", nil, []string{"کد شما", "«" + c.Survey.Name + "»"}},
	} {
		to := fmt.Sprintf("p%d@company.example", i)
		v.sendCode(t, slug, map[string]any{"session": v.session(t, slug, tc.session), "channel": "email", "address": to}).verification(t)
		msgs := v.out.messages()
		msg := msgs[len(msgs)-1]
		for _, w := range tc.want {
			if msg.To != to || !strings.Contains(msg.Subject, w) || !strings.Contains(msg.Body, w) {
				t.Errorf("%s: the message %+v lacks %q", tc.name, msg, w)
			}
		}
	}
}

// TestResumeSaysItsLanguage: contract sections 20 and 24. The sessions
// route's 201 and the resume route's 200 name the session's language
// (`language`), the one its response records: the start's, else the
// survey's. A client that continues on another device learns from resume/
// which language to show, and the response it records there is in it.
func TestResumeSaysItsLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	slug, sid, req, _ := f.partialSurvey(t, nil) // a fa survey
	if err := f.st.SetLanguages(context.Background(), f.aid, sid, []string{"en", "ar"}); err != nil {
		t.Fatal(err)
	}
	rk := strconv.FormatInt(req, 10)
	for i, tc := range []struct {
		name string
		body map[string]any
		want string
	}{
		{"a translation", map[string]any{"language": "en"}, "en"},
		{"another translation", map[string]any{"language": "ar"}, "ar"},
		{"the default named", map[string]any{"language": "fa"}, "fa"},
		{"none: the survey's", nil, "fa"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var started, resumed struct{ Session, Language string }
			r := f.startSession(t, slug, tc.body)
			if err := json.Unmarshal([]byte(r.body), &started); err != nil || r.code != 201 || started.Language != tc.want {
				t.Fatalf("session: %d %s, want language %q", r.code, r.body, tc.want)
			}
			put := f.putPartial(t, slug, map[string]any{"session": started.Session, "page": 0, "answers": map[string]any{rk: "Ann"}})
			if put.code != 204 {
				t.Fatalf("partial: %d %s", put.code, put.body)
			}
			r = send(t, f.h, "POST", resumePath(slug), mustJSON(t, map[string]any{"token": put.header.Get("Resume-Token")}), js...)
			if err := json.Unmarshal([]byte(r.body), &resumed); err != nil || r.code != 200 || resumed.Language != tc.want {
				t.Fatalf("resume: %d %s, want language %q", r.code, r.body, tc.want)
			}
			s := f.respond(t, slug, resumed.Session, map[string]any{rk: "Ann"}).submitted(t)
			if got, ok := f.storedLanguage(t, sid, s.ID); !ok || got != tc.want {
				t.Errorf("the resumed session's response: stored lang %q (%v), want %q", got, ok, tc.want)
			}
			f.wantStored(t, tc.name, sid, i+1)
		})
	}
}
