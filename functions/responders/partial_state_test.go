package responders_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"surveyservice/shared/store"
)

// TestPartialSeesTheCloseAtOnce: contract section 20, a save after the
// close answers 410, with no grace. Sessions enough to read every copy of
// the survey's state (surveystate.go) save once (204: the copies written
// whole and the container's collection warm); the owner stops the
// survey, and every session's next save answers 410; reopened, 204
// again; trashed, 404; restored, 204; an expiration date of today, 410.
func TestPartialSeesTheCloseAtOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, map[string]any{"partial_responses": true})
	f.textQuestion(t, sid, "Q", false)
	var sessions []string
	for range 4 * store.SurveyStateCopies {
		sessions = append(sessions, f.session(t, slug, nil))
	}
	saves := func(step string, want int) {
		t.Helper()
		for i, s := range sessions {
			if got := f.putPartial(t, slug, map[string]any{"session": s, "page": 0}); got.code != want {
				t.Fatalf("%s: session %d: %d %s, want %d", step, i, got.code, got.body, want)
			}
		}
	}
	saves("open", 204)
	stop, open := true, false
	steps := []struct {
		name string
		do   func() error
		want int
	}{
		{"stopped", func() error { return f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{IsStopped: &stop}) }, 410},
		{"reopened", func() error { return f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{IsStopped: &open}) }, 204},
		{"trashed", func() error { return f.st.TrashSurvey(ctx, f.aid, sid) }, 404},
		{"restored", func() error { return f.st.RestoreSurvey(ctx, f.aid, sid, nil) }, 204},
		{"expired today", func() error {
			return f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Expire: true, Expiration: f.st.Now().UTC().Format("2006-01-02")})
		}, 410},
		{"expiration cleared", func() error { return f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Expire: true}) }, 204},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		saves(s.name, s.want)
	}
	// Every copy is whole and says what the survey item says.
	for k := range store.SurveyStateCopies {
		var st struct {
			IsStopped bool  `dynamo:"is_stopped"`
			Deleted   bool  `dynamo:"deleted"`
			CV        int64 `dynamo:"cv"`
			Whole     bool  `dynamo:"whole"`
		}
		if err := f.db().Table(f.st.TableName()).Get(store.AttrPK, store.SurveyStatePK(sid, k)).Range(store.AttrSK, "EQ", store.SurveyStateSK).
			Consistent(true).One(ctx, &st); err != nil {
			t.Fatalf("copy %d: %v", k, err)
		}
		var sv struct {
			CV int64 `dynamo:"cv"`
		}
		if err := f.db().Table(f.st.TableName()).Get(store.AttrPK, store.SurveyPK(sid)).Range(store.AttrSK, "EQ", store.SurveySK).
			Consistent(true).One(ctx, &sv); err != nil {
			t.Fatal(err)
		}
		if !st.Whole || st.IsStopped || st.Deleted || st.CV != sv.CV {
			t.Errorf("copy %d: %+v, the survey's cv %d", k, st, sv.CV)
		}
	}
}

// TestPartialSavesRaceAClose: on DynamoDB behind the conflict model
// (transactions that meet another's items are cancelled), sessions save
// page after page while the owner stops the survey: no save answers 503
// or 500, each answers 204 or 410, and every save sent after the stop
// returned answers 410.
func TestPartialSavesRaceAClose(t *testing.T) {
	f, _ := conflictFixture(t)
	ctx := context.Background()
	slug, sid := f.survey(t, map[string]any{"partial_responses": true})
	f.textQuestion(t, sid, "Q", false)
	var sessions []string
	for range 2 * store.SurveyStateCopies {
		sessions = append(sessions, f.session(t, slug, nil))
	}
	var (
		mu      sync.Mutex
		stopped time.Time // when the stop returned
		bad     []string
		counts  = map[int]int{}
		wg      sync.WaitGroup
	)
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for page := 0; ; page++ {
				sent := time.Now()
				got := f.putPartial(t, slug, map[string]any{"session": s, "page": 0})
				mu.Lock()
				counts[got.code]++
				after := !stopped.IsZero() && sent.After(stopped)
				if got.code != 204 && got.code != 410 || after && got.code != 410 {
					bad = append(bad, fmt.Sprintf("session %d save %d (sent after the stop: %v): %d %s", i, page, after, got.code, got.body))
				}
				mu.Unlock()
				if after || page > 200 {
					return
				}
			}
		}()
	}
	stop := true
	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{IsStopped: &stop}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	stopped = time.Now()
	mu.Unlock()
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d wrong answers, %v: %v", len(bad), counts, bad)
	}
	if counts[410] < len(sessions) {
		t.Errorf("answers %v: every session's save after the stop must answer 410", counts)
	}
}
