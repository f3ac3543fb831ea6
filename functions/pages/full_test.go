package pages_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
)

// TestFullPage (contract section 25): once a survey's response_limit is
// reached, its page answers 410 saying it is full in the survey's
// language, and so does its plain form.
func TestFullPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	fa := int64(1)
	set := map[string]any{"response_limit": 1, "response_limit_gen": time.Now().UnixNano()}
	if err := f.st.UpdateSettings(context.Background(), f.aid, f.sv.ID, store.SettingsUpdate{Language: &fa, Set: set}); err != nil {
		t.Fatal(err)
	}
	post := func(key string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/s/"+f.sv.URLSlug+"/", strings.NewReader("idempotency_key="+key))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		return rec
	}
	if rec := post("k1"); rec.Code >= 400 {
		t.Fatalf("the one place: %d %.300s", rec.Code, rec.Body)
	}
	const full = "این پرسش‌نامه تکمیل شده و پاسخ تازه‌ای نمی‌پذیرد."
	if rec := post("k2"); rec.Code != 410 || !strings.Contains(rec.Body.String(), full) {
		t.Errorf("plain form to a full survey: %d %.300s", rec.Code, rec.Body)
	}
	testenv.Tally(t)
	if r := f.get("/s/" + f.sv.URLSlug + "/"); r.code != 410 || !strings.Contains(r.body, full) {
		t.Errorf("full page: %d %.300s", r.code, r.body)
	}
}
