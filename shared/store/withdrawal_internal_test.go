package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/survey"
)

// TestWithdrawalNamesWhatTheSubmissionWrote: the withdrawal a fence keeps
// on the key's record (and the dispatch finishes from the stream) names,
// after its JSON round trip, every item withdraw takes back: a spent
// unique code, a link, a responder not tagged as spam, identities by
// their hashes only, files, places; a spam-tagged response's responder
// and a code that is not unique are not its to take back.
func TestWithdrawalNamesWhatTheSubmissionWrote(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 9, 30, 0, 123456000, time.UTC)
	full := Submission{KeyHash: "k", KeyOnClaim: true, Session: "s", LegacySession: true, CheckCode: true, CodeUnique: true, LinkID: "L",
		Responder: "r", Identities: []string{"a@example.com", "+989121234567"}, Files: []ResponseFile{{Key: "uploads/1/x.png", Element: 3}},
		Caps: []Cap{{Attr: "c1"}, {Attr: "q7", Quota: 7}}, placed: []int{2, 5}}
	cases := []struct {
		name string
		sub  Submission
		r    survey.Response
		want withdrawal
	}{
		{"everything", full, survey.Response{ID: 9, SurveyID: 4, SubmittedAt: at, Code: "C0DE"}, withdrawal{Survey: 4, Response: 9, SubmittedAt: at,
			KeyHash: "k", KeyOnClaim: true, Session: "s", LegacySession: true, Code: "C0DE", Link: "L", Responder: "r",
			Identities: []string{identityHash("a@example.com"), identityHash("+989121234567")}, Files: []string{"uploads/1/x.png"},
			Places: map[string]int{"c1": 2, "q7": 5}, Closed: true}},
		{"spam, a shared code", Submission{KeyHash: "k", CheckCode: true, Responder: "r"}, survey.Response{ID: 9, SurveyID: 4, SubmittedAt: at,
			Code: "C0DE", Spam: true}, withdrawal{Survey: 4, Response: 9, SubmittedAt: at, KeyHash: "k", Closed: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := json.Marshal(tc.sub.withdrawal(tc.r, true))
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range tc.sub.Identities {
				if strings.Contains(string(plan), id) {
					t.Errorf("the plan names identity %q in the clear: %s", id, plan)
				}
			}
			var got withdrawal
			if err := json.Unmarshal(plan, &got); err != nil {
				t.Fatal(err)
			}
			if !got.SubmittedAt.Equal(tc.want.SubmittedAt) || ResponseTimeSK(got.SubmittedAt, 9) != ResponseTimeSK(tc.want.SubmittedAt, 9) {
				t.Errorf("submitted_at %v, want %v (the page index's key)", got.SubmittedAt, tc.want.SubmittedAt)
			}
			got.SubmittedAt = tc.want.SubmittedAt
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("withdrawal %+v, want %+v", got, tc.want)
			}
		})
	}
}
