package pages

import (
	"reflect"
	"testing"
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
