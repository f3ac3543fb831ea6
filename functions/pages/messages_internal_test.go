package pages

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/challenge"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// TestEveryLanguageHasEveryText: every language of a survey (fa, ar, tr)
// has every refusal of the table and every word of the page's own tables
// (contract section 16: every text a responder meets is in the survey's
// language; before, a Turkish survey's page was English).
func TestEveryLanguageHasEveryText(t *testing.T) {
	keys := map[string]bool{}
	for _, m := range pageMessages {
		for k := range m {
			keys[k] = true
		}
	}
	for _, lang := range []string{"fa", "ar", "tr"} {
		for k := range keys {
			if pageMessages[lang][k] == "" {
				t.Errorf("%s lacks the refusal %q", lang, k)
			}
		}
		tables := map[string]any{"texts": textsByLang[lang], "texts16": texts16[lang], "file": fileTextsByLang[lang], "signin": signInTextsByLang[lang]}
		for name, tbl := range tables {
			v := reflect.ValueOf(tbl)
			for i := range v.NumField() {
				if f := v.Field(i); f.Kind() == reflect.String && f.String() == "" {
					t.Errorf("%s %s lacks %s", lang, name, v.Type().Field(i).Name)
				}
			}
		}
	}
	for _, msg := range []string{msgThrottled, msgBusy, msgChallenge, msgRequired, msgSessionResponded, msgFileTaken,
		msgBadEmail, msgBadNumber, msgAddressRefused, msgNumberRefused, msgBadCode, msgCodeExpired, msgSignIn} {
		if !keys[msg] {
			t.Errorf("the table has no translation of %q", msg)
		}
	}
}

// TestTitleIsolatedInMessages: a question's title that leaves a bidi
// control open (U+202E RIGHT-TO-LEFT OVERRIDE, an embedding, an isolate)
// does not reach the refusal after it: the message quotes the title
// between FSI and PDI, which close whatever it opened. Before, the title
// was quoted as it is, and an unbalanced U+202E showed the refusal after
// it reversed, in English and in Persian.
func TestTitleIsolatedInMessages(t *testing.T) {
	refusal := &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"answers": map[string]any{"7": []string{survey.MsgAnswerRequired}}}}
	for _, c := range []struct{ name, title string }{
		{"override", "\u202eColours"},
		{"embedding", "\u202bرنگ"},
		{"isolate", "\u2067Colours"},
		{"closing the quote", "\u2069\u202eColours"},
		{"isolates", "\u2066\u2067\u2068Colours\u2069"},
		{"balanced", "\u202eColours\u202c"},
		{"plain", "Colours"},
	} {
		for _, lang := range []string{"en", "fa"} {
			t.Run(c.name+" "+lang, func(t *testing.T) {
				msgs := messages(refusal, map[int64]survey.Element{7: {ID: 7, Title: c.title}}, lang)
				want := translate(lang, survey.MsgAnswerRequired)
				if len(msgs) != 1 || !strings.HasSuffix(msgs[0], ": "+want) {
					t.Fatalf("messages %q, want one ending in %q", msgs, want)
				}
				if open := openBidi(strings.TrimSuffix(msgs[0], want)); open != 0 {
					t.Errorf("%q leaves %d bidi controls open before the refusal", msgs[0], open)
				}
				if got := strings.Map(dropBidi, msgs[0]); got != strings.Map(dropBidi, c.title)+": "+want {
					t.Errorf("%q does not quote the title %q", msgs[0], c.title)
				}
			})
		}
	}
}

// openBidi is how many embeddings, overrides and isolates s leaves open,
// as the Unicode bidi algorithm counts them (X1-X8): a PDF closes the
// last embedding or override unless an isolate is open after it, a PDI
// closes the last isolate and whatever opened inside it.
func openBidi(s string) int {
	var stack []bool // true: an isolate
	for _, r := range s {
		switch r {
		case '\u202a', '\u202b', '\u202d', '\u202e':
			stack = append(stack, false)
		case '\u2066', '\u2067', '\u2068':
			stack = append(stack, true)
		case '\u202c':
			if n := len(stack); n > 0 && !stack[n-1] {
				stack = stack[:n-1]
			}
		case '\u2069':
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] {
					stack = stack[:i]
					break
				}
			}
		}
	}
	return len(stack)
}

func dropBidi(r rune) rune {
	if r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' {
		return -1
	}
	return r
}

// TestTableCarriesWhatThePageMeets: the script's table (data-messages)
// carries the API's reworded refusals that the page's own questions can
// meet, and no others (the page's weight, contract section 14); before,
// every page carried every one, about 1.2 KB on an English page.
func TestTableCarriesWhatThePageMeets(t *testing.T) {
	rules := []survey.Condition{{FirstOperand: 1}}
	pick := survey.ElementView{Choices: []survey.ChoiceItem{{ID: 2, Name: "a"}}}
	pick.Type = survey.TypeMultipleChoice
	multi := pick
	multi.AllowMultipleSelect, multi.MinSelectableChoices = true, 2
	txt := survey.ElementView{}
	txt.Type = survey.TypeText
	grid := survey.ElementView{Rows: []survey.NamedItem{{ID: 3, Name: "r"}}}
	grid.Type = survey.TypeMatrix
	ruled := survey.ElementView{Conditions: &rules}
	ruled.Type = survey.TypeRating
	rating := survey.ElementView{}
	rating.Type = survey.TypeRating
	always := []string{survey.ErrReusedKey.Detail, survey.MsgUnknownQuestion}
	for _, c := range []struct {
		name      string
		s         survey.ResponderSurvey
		has, lack []string
	}{
		{"ratings", survey.ResponderSurvey{Questions: [][]survey.ElementView{{rating}}}, always,
			[]string{`Invalid pk`, `Unknown row`, `Invalid column`, survey.MsgNotShown, "Unknown variable.", "has at least", "no more than"}},
		{"a single choice", survey.ResponderSurvey{Questions: [][]survey.ElementView{{pick}, {rating}}}, append([]string{`Invalid pk \"%d\"`}, always...),
			[]string{`Unknown row`, survey.MsgNotShown, "has at least", "no more than"}},
		{"everything", survey.ResponderSurvey{Questions: [][]survey.ElementView{{multi, txt}, {grid, ruled}}, Variables: []string{"team"}},
			append([]string{`Invalid pk`, `Unknown row \"%d\".`, `Invalid column`, survey.MsgNotShown, "Unknown variable.",
				"has at least %d elements", "no more than %d elements", "no more than %d characters"}, always...), nil},
	} {
		for _, lang := range []string{"en", "fa"} {
			t.Run(c.name+" "+lang, func(t *testing.T) {
				table := messagesJSON(surveyPage{page: newPage(lang, ""), Survey: c.s})
				for _, w := range c.has {
					if !strings.Contains(table, w) {
						t.Errorf("the table lacks %s: %s", w, table)
					}
				}
				for _, w := range c.lack {
					if strings.Contains(table, w) {
						t.Errorf("the table carries %s: %s", w, table)
					}
				}
			})
		}
	}
}

// featurePages are a survey's page with one feature each, and with none
// and all of them, in lang: what the page's table is chosen by (meets).
func featurePages(lang string) map[string]surveyPage {
	q := func(e survey.Element) []survey.ElementView { return []survey.ElementView{view(e)} }
	rating := q(survey.Element{ID: 1, Type: survey.TypeRating, Title: "r", RatingMax: 5})
	file := q(survey.Element{ID: 2, Type: survey.TypeFileUpload, Title: "f", MaxFileSizeMB: 1, AllowedFileTypes: []string{"pdf"}})
	duration := "00:05:00"
	features := map[string]func(*surveyPage){
		"email sign-in": func(p *surveyPage) { p.Survey.Settings.ServiceAuth = true },
		"phone sign-in": func(p *surveyPage) { p.Survey.Settings.PhoneNumberAuth = true },
		"code":          func(p *surveyPage) { p.Survey.CodeAuth = true },
		"captcha":       func(p *surveyPage) { p.Survey.Settings.CaptchaNeeded = true },
		"file":          func(p *surveyPage) { p.Survey.Questions = append(p.Survey.Questions, file) },
		"edit":          func(p *surveyPage) { p.Survey.Settings.EditResponseEnabled = true },
		"no_spam":       func(p *surveyPage) { p.Survey.Settings.NoSpam = true },
		"location":      func(p *surveyPage) { p.Survey.Settings.LocationIsActive = true },
		"time limit":    func(p *surveyPage) { p.Survey.RespondingDuration = &duration },
		"link":          func(p *surveyPage) { p.QS = "token" },
		"partial":       func(p *surveyPage) { p.Survey.Settings.PartialResponses = true },
	}
	page := func(on ...func(*surveyPage)) surveyPage {
		v := survey.ResponderSurvey{URLSlug: "s", Name: "n", Language: lang, Questions: [][]survey.ElementView{rating}}
		p := newSurveyPage(v, &http.Request{URL: &url.URL{}})
		for _, f := range on {
			f(&p)
		}
		return p
	}
	pages := map[string]surveyPage{"none": page()}
	var all []func(*surveyPage)
	for name, f := range features {
		pages[name] = page(f)
		all = append(all, f)
	}
	pages["all"] = page(all...)
	return pages
}

// tableOf is the table a rendered page carries (data-messages).
func tableOf(t *testing.T, page string) map[string]string {
	t.Helper()
	m := map[string]string{}
	attr := regexp.MustCompile(` data-messages='([^']*)'`).FindStringSubmatch(page)
	if attr == nil {
		return m
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(attr[1])), &m); err != nil {
		t.Fatalf("the table is no JSON: %v", err)
	}
	return m
}

// detail is a refusal's words: its detail, or its one field's message.
func detail(err *survey.Error) string {
	if err.Detail != "" {
		return err.Detail
	}
	for _, v := range err.Fields {
		return v.([]string)[0]
	}
	return ""
}

// TestTableCarriesTheFeaturesWords: a page carries the translations of
// the refusals and words that its features can show (the API's refusals
// of sign-in, a code, a file, an edit, no_spam, the location, a time
// limit, a personalised link; "Continue later"), and a page without the
// feature does not; every page carries what any page can meet (a closed
// or full survey, a session, the network, the service busy, the words
// of answers kept offline), and none the page's own words for a refusal,
// which its script never looks up. Before, a Persian page carried every
// translation, about 5.2 KB, whatever its survey asked; and a page whose
// only choice-free question was a file did not carry the refusal of its
// file question removed (uploads/ names it by "Invalid pk").
func TestTableCarriesTheFeaturesWords(t *testing.T) {
	t.Parallel()
	codeRefused, challenged := detail(survey.ErrCodeRefused), detail(challenge.ErrInvalid)
	guesses := detail(survey.GuessLimits{}.CheckGuess(1, 1, time.Second).(*survey.Error))
	responded := detail(survey.ErrAlreadyResponded)
	signIn := []string{detail(responding.ErrInvalidCode), detail(responding.ErrCodeExpired), detail(responding.ErrSignIn), responded, challenged}
	invalidPK := strings.ReplaceAll(survey.InvalidPK(7), "7", "%d")
	words := map[string][]string{
		"email sign-in": append([]string{detail(responding.ErrInvalidEmail), detail(responding.ErrAddressRefused)}, signIn...),
		"phone sign-in": append([]string{detail(responding.ErrInvalidPhone), detail(survey.ErrNumberRefused), guesses}, signIn...),
		"code":          {codeRefused, guesses, challenged},
		"captcha":       {challenged},
		"file":          {uploads.MsgInvalidUpload, uploads.MsgNotUploaded, uploads.MsgMismatch, survey.MsgFileTaken, invalidPK},
		"edit":          {detail(responding.ErrInvalidEditToken), detail(responding.ErrEditingDisabled)},
		"no_spam":       {responded, detail(survey.ErrNeedsCookies)},
		"location":      {detail(survey.ErrLocationRequired)},
		"time limit":    {detail(responding.ErrTimeIsUp)},
		"link":          {detail(responding.ErrInvalidLink)},
		"partial":       {msgContinueLater, msgContinueElsewhere},
	}
	every := []string{detail(survey.ErrSurveyClosed), detail(survey.ErrSurveyFull), detail(survey.ErrQuotaFull), detail(survey.ErrLinkUsed),
		detail(responding.ErrInvalidSession), detail(survey.ErrSessionResponded), detail(challenge.ErrRequired), survey.MsgAnswerRequired,
		msgSomethingWrong, msgNetwork, msgThrottled, msgBusy, msgNotFound, msgSavedOffline, msgNeedsConnection, msgResumeExpired, msgResumed}
	own := []string{msgTiedRanks, msgAtLeast, msgAtMost, msgTooLong, msgFormResent, msgSurveyChanged, msgNeedsScript, errStepsInvalid.Detail}
	for _, lang := range []string{"fa", "ar", "tr"} {
		pages := featurePages(lang)
		none := tableOf(t, string(renderSurvey(pages["none"])))
		for _, w := range every {
			if none[w] == "" {
				t.Errorf("%s: a page without features lacks %q", lang, w)
			}
		}
		for name, ws := range words {
			table := tableOf(t, string(renderSurvey(pages[name])))
			for _, w := range ws {
				if table[w] == "" {
					t.Errorf("%s %s: the page lacks %q", lang, name, w)
				}
				if none[w] != "" {
					t.Errorf("%s: a page without features carries %s's %q", lang, name, w)
				}
			}
			for _, w := range own {
				if _, ok := table[w]; ok {
					t.Errorf("%s %s: the page carries the page's own words %q", lang, name, w)
				}
			}
		}
	}
}

// TestScriptsFindTheirWords: every message a page's scripts look up by
// its English words (a literal of app.js, offline.js, partial.js,
// signin.js, uploads.js ... that the table translates) is in the table of
// every page that loads the script, in every language; and the page with
// every feature carries every translation but the page's own words, so
// that no translation is left off every page. A message dropped that a
// script can show would show in English on a Persian page.
func TestScriptsFindTheirWords(t *testing.T) {
	t.Parallel()
	script := regexp.MustCompile(`<script src="/assets/([^"]+)"`)
	literal := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'`)
	for _, lang := range []string{"fa", "ar", "tr"} {
		for name, p := range featurePages(lang) {
			page := string(renderSurvey(p))
			table := tableOf(t, page)
			scripts := script.FindAllStringSubmatch(page, -1)
			if len(scripts) < 3 {
				t.Fatalf("%s %s: the page loads %d scripts", lang, name, len(scripts))
			}
			for _, s := range scripts {
				for _, l := range literal.FindAllStringSubmatch(string(assets[s[1]].body), -1) {
					w := l[1] + l[2]
					if _, translated := pageMessages[lang][w]; translated && table[w] == "" {
						t.Errorf("%s %s: %s looks up %q, which the page's table lacks", lang, name, s[1], w)
					}
				}
			}
			if name != "all" {
				continue
			}
			for w := range pageMessages[lang] {
				if met := meets[w]; table[w] == "" && (met == nil || reflect.ValueOf(met).Pointer() != reflect.ValueOf(words).Pointer()) {
					t.Errorf("%s: no page carries %q", lang, w)
				}
			}
		}
	}
	for k := range meets {
		_, own := pageMessages["fa"][k]
		_, api := reworded[k]
		_, pattern := patterns[k]
		if !own && !api && !pattern {
			t.Errorf("meets names %q, which no table has", k)
		}
	}
}
