package store_test

import (
	"encoding/json"
	"testing"

	"surveyservice/shared/store"
)

// TestAllowanceOf: an allowance's stream key reads back as its survey and
// k; any other key (a fill's, a response's, a k out of range, a survey id
// not in its canonical form) is not an allowance.
func TestAllowanceOf(t *testing.T) {
	if sid, k, ok := store.AllowanceOf(store.CapPK(12, 255), "CAP"); !ok || sid != 12 || k != 255 {
		t.Fatalf("AllowanceOf(CapPK(12, 255)) = %d %d %v", sid, k, ok)
	}
	for _, c := range [][2]string{
		{store.CapFillPK(12), "FULL#l1#20#0"},
		{store.CapPK(12, 3), "FULL#l1#20#0"},
		{"CAP#12#256", "CAP"},
		{"CAP#12#-1", "CAP"},
		{"CAP#012#3", "CAP"},
		{"CAP#12#03", "CAP"},
		{"CAP#0#3", "CAP"},
		{"CAP#12", "CAP"},
		{store.ResponsesPK(12), "CAP"},
	} {
		if _, _, ok := store.AllowanceOf(c[0], c[1]); ok {
			t.Errorf("AllowanceOf(%q, %q) ok", c[0], c[1])
		}
	}
}

// FuzzAllowanceOf: whatever a stream record's keys hold, AllowanceOf never
// panics, and what it accepts is exactly an allowance's key.
func FuzzAllowanceOf(f *testing.F) {
	f.Add(store.CapPK(12, 7), "CAP")
	f.Add("CAP#12#", "CAP")
	f.Add("CAP##7", "CAP")
	f.Fuzz(func(t *testing.T, pk, sk string) {
		sid, k, ok := store.AllowanceOf(pk, sk)
		if ok && (store.CapPK(sid, k) != pk || sk != "CAP" || k < 0 || k >= store.CapAllowances) {
			t.Fatalf("AllowanceOf(%q, %q) = %d %d", pk, sk, sid, k)
		}
	})
}

// TestCapFillPayload: survey.full's data is {"survey_id", "quota_id",
// "limit"}, quota_id null for the response limit (contract section 25).
func TestCapFillPayload(t *testing.T) {
	for _, c := range []struct {
		fill store.CapFill
		want string
	}{
		{store.CapFill{SurveyID: 3, Limit: 20}, `{"survey_id":3,"quota_id":null,"limit":20}`},
		{store.CapFill{SurveyID: 3, Quota: 9, Limit: 5}, `{"survey_id":3,"quota_id":9,"limit":5}`},
	} {
		if got := c.fill.Payload(); string(got) != c.want || !json.Valid(got) {
			t.Errorf("Payload(%+v) = %s, want %s", c.fill, got, c.want)
		}
	}
}
