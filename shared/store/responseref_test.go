package store_test

import (
	"testing"
	"time"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestParseResponseRef(t *testing.T) {
	at := time.Date(2026, 11, 23, 1, 2, 3, 456789000, time.UTC)
	ref, ok := store.ParseResponseRef(store.ResponsesPK(12), store.ResponseSK(34), at.Format(survey.TimestampLayout))
	if !ok || ref.SurveyID != 12 || ref.ResponseID != 34 || !ref.SubmittedAt.Equal(at) {
		t.Fatalf("ParseResponseRef = %+v %v", ref, ok)
	}
	for _, c := range [][3]string{
		{store.SurveyPK(12), store.ResponseSK(34), at.Format(survey.TimestampLayout)},
		{store.ResponsesPK(12), store.IdempotencySK("ab"), at.Format(survey.TimestampLayout)},
		{store.ResponsesPK(12), store.ResponseSK(34), "yesterday"},
		{"RESPONSES#00000000000000000000", store.ResponseSK(34), at.Format(survey.TimestampLayout)},
	} {
		if _, ok := store.ParseResponseRef(c[0], c[1], c[2]); ok {
			t.Errorf("ParseResponseRef(%q) ok", c)
		}
	}
}

func FuzzParseResponseRef(f *testing.F) {
	f.Add(store.ResponsesPK(12), store.ResponseSK(34), "2026-11-23T01:02:03.456789Z")
	f.Fuzz(func(t *testing.T, pk, sk, submitted string) {
		ref, ok := store.ParseResponseRef(pk, sk, submitted)
		if !ok {
			return
		}
		if store.ResponsesPK(ref.SurveyID) != pk || store.ResponseSK(ref.ResponseID) != sk {
			t.Fatalf("%q %q parse to %+v", pk, sk, ref)
		}
	})
}
