package settings_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"surveyservice/shared/survey"
)

func phonesPath(id any) string { return fmt.Sprintf("/api/surveys/%v/settings/phone-numbers/", id) }

const badNumber = "Enter a valid mobile number."

// phones follows the phone list's pages (page_size 64) from page 1 and
// checks that the count is the number of items walked, in byte order, each
// once.
func (f *fixture) phones(t *testing.T, sid int64) []string {
	t.Helper()
	out, count := f.walkList(t, phonesPath(sid))
	if out == nil {
		out = []string{}
	}
	if count != len(out) || !slices.IsSorted(out) || len(slices.Compact(slices.Clone(out))) != len(out) {
		t.Errorf("count %d, paging yields %d numbers (sorted and distinct: %v)", count, len(out), slices.IsSorted(out))
	}
	return out
}

// TestPhonesAdd: every form section 18 accepts is stored in E.164; 201
// answers the request's numbers in E.164, de-duplicated after
// normalisation, in request order; both body forms; not plan-gated.
func TestPhonesAdd(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Phones") // fa, the default language
	check(t, "empty list", f.do("GET", phonesPath(sid), ""), 200, `{"count": 0, "next": null, "previous": null, "results": []}`)
	r := f.do("POST", phonesPath(sid), `["+98 912 123 4567", "00989121234567", "۰۹۱۲-۱۲۳-۴۵۶۸", "(+44) 7911 123457", "٠٠٤٤٧٩١١١٢٣٤٥٧", "09121234567"]`)
	check(t, "POST array", r, 201, `["+989121234567", "+989121234568", "+447911123457"]`)
	r = f.do("POST", phonesPath(sid), `{"phone_numbers": ["+14155550100", "+447911123457"]}`)
	check(t, "POST object", r, 201, `["+14155550100", "+447911123457"]`)
	want := []string{"+14155550100", "+447911123457", "+989121234567", "+989121234568"}
	if got := f.phones(t, sid); !slices.Equal(got, want) {
		t.Errorf("numbers %q, want %q", got, want)
	}
	// The codes' list is another list.
	check(t, "codes untouched", f.do("GET", codesPath(sid), ""), 200, `{"count": 0, "next": null, "previous": null, "results": []}`)

	// The 09 form reads by the survey's language at the time of the request.
	check(t, "language en", f.patch(t, sid, `{"survey": {"language": 4}}`), 200, nil)
	check(t, "09 on en", f.do("POST", phonesPath(sid), `["+14155550101", "09121234569"]`), 400,
		`{"phone_numbers": {"1": ["`+badNumber+`"]}}`)
	check(t, "language fa", f.patch(t, sid, `{"survey": {"language": 1}}`), 200, nil)
	check(t, "09 on fa", f.do("POST", phonesPath(sid), `["09121234569"]`), 201, `["+989121234569"]`)

	check(t, "another account's survey", f.do("POST", phonesPath(missingID), `["+14155550100"]`), 404, notFound)
}

// TestPhonesPostErrors: a bad item answers 400 under its index; a bad body
// as the codes' list answers; nothing is stored.
func TestPhonesPostErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Bad phones")
	many := make([]string, 5001)
	for i := range many {
		many[i] = fmt.Sprintf("+1415%07d", i)
	}
	for _, c := range []struct{ name, body, want string }{
		{"bad item", `["+14155550100", "12345", "+1 415 555 0101"]`, `{"phone_numbers": {"1": ["` + badNumber + `"]}}`},
		{"bad items in an object", `{"phone_numbers": ["abc", "+0123456789", 5]}`,
			`{"phone_numbers": {"0": ["` + badNumber + `"], "1": ["` + badNumber + `"], "2": ["Not a valid string."]}}`},
		{"too short", `["+1234567"]`, `{"phone_numbers": {"0": ["` + badNumber + `"]}}`},
		{"too long", `["+1234567890123456"]`, `{"phone_numbers": {"0": ["` + badNumber + `"]}}`},
		{"blank", `[""]`, `{"phone_numbers": {"0": ["` + badNumber + `"]}}`},
		// Issue 38: premium-rate, satellite, unassigned and toll-free ranges
		// are no mobile numbers (contract section 18 as amended).
		{"not mobile", `["+8821234567890", "+881612345678", "+979123456789", "+19005550123", "+449091234567", "+80012345678", "+989121234567"]`,
			`{"phone_numbers": {"0": ["` + badNumber + `"], "1": ["` + badNumber + `"], "2": ["` + badNumber + `"], "3": ["` + badNumber + `"], "4": ["` +
				badNumber + `"], "5": ["` + badNumber + `"]}}`},
		{"empty list", `[]`, `{"non_field_errors": ["This list may not be empty."]}`},
		{"empty object list", `{"phone_numbers": []}`, `{"phone_numbers": ["This list may not be empty."]}`},
		{"no key", `{"codes": ["+14155550100"]}`, `{"phone_numbers": ["This field is required."]}`},
		{"a string", `"+14155550100"`, `{"non_field_errors": ["Expected a list of items but got type \"str\"."]}`},
		{"5001", mustJSON(t, many), `{"non_field_errors": ["Ensure this field has no more than 5000 elements."]}`},
	} {
		check(t, c.name, f.do("POST", phonesPath(sid), c.body), 400, c.want)
	}
	if got := f.phones(t, sid); len(got) != 0 {
		t.Errorf("refused requests stored %q", got)
	}
}

// TestPhonesDelete: DELETE normalises before matching; unknown numbers are
// ignored; [] deletes none; a bad item deletes nothing; no body empties.
func TestPhonesDelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Delete phones")
	check(t, "seed", f.do("POST", phonesPath(sid), `["+989121234567", "+989121234568", "+14155550100", "+447911123457"]`), 201, nil)
	for _, s := range []struct {
		body string
		want []string
	}{
		{`["۰۹۱۲ ۱۲۳ ۴۵۶۷", "+19999999999"]`, []string{"+14155550100", "+447911123457", "+989121234568"}},
		{`[]`, []string{"+14155550100", "+447911123457", "+989121234568"}},
		{`{"phone_numbers": ["0044 7911 123457"]}`, []string{"+14155550100", "+989121234568"}},
	} {
		check(t, "DELETE "+s.body, f.do("DELETE", phonesPath(sid), s.body), 204, nil)
		if got := f.phones(t, sid); !slices.Equal(got, s.want) {
			t.Errorf("after DELETE %s: %q, want %q", s.body, got, s.want)
		}
	}
	check(t, "bad item", f.do("DELETE", phonesPath(sid), `["+14155550100", "x"]`), 400, `{"phone_numbers": {"1": ["`+badNumber+`"]}}`)
	check(t, "DELETE all", f.do("DELETE", phonesPath(sid), ""), 204, nil)
	if got := f.phones(t, sid); len(got) != 0 {
		t.Errorf("after DELETE with no body: %q", got)
	}
	fresh := f.newSurvey(t, "Never listed")
	check(t, "DELETE all of a list never written", f.do("DELETE", phonesPath(fresh), ""), 204, nil)
	check(t, "DELETE of a list never written", f.do("DELETE", phonesPath(fresh), `["+14155550100"]`), 204, nil)
}

// TestPhonesRace: ten uploads at once of the same numbers, each written in
// other forms, leave the count equal to the numbers stored (the numbers
// meet after normalisation; as TestCodeCountRace, whose uploads are the
// same codes). Overlapping halves race in the store's TestPhoneList.
func TestPhonesRace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, survey.PlanFree)
	sid := f.newSurvey(t, "Phones race")
	const n = 110 // two transactions: 99 and 11
	var wg sync.WaitGroup
	replies := make([]reply, 10)
	start := make(chan struct{})
	for i := range replies {
		batch := make([]string, n)
		for j := range batch {
			switch (i + j) % 3 {
			case 0:
				batch[j] = fmt.Sprintf("+98912%07d", j)
			case 1:
				batch[j] = fmt.Sprintf("0098 912 %07d", j)
			default:
				batch[j] = fmt.Sprintf("0912-%07d", j)
			}
		}
		wg.Go(func() {
			<-start
			replies[i] = f.do("POST", phonesPath(sid), mustJSON(t, batch))
		})
	}
	close(start)
	wg.Wait()
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("+98912%07d", i)
	}
	for _, r := range replies {
		check(t, "racing POST", r, 201, want)
	}
	if got := f.phones(t, sid); !slices.Equal(got, want) {
		t.Errorf("after the race: %d numbers, want the %d uploaded", len(got), len(want))
	}
}
