package pages

import (
	"reflect"
	"strings"
	"testing"

	"surveyservice/shared/survey"
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
				table := messagesJSON(lang, c.s)
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
