package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestReplayAnswersOnlyAResponseThatStands (contract section 11: the same
// Idempotency-Key answers the first 201 again; section 25: never one
// response more than the limit): a second request with a key (a double
// click, a client's retry, the offline page's resend) that arrives
// between its original's commit and its original's fence answers a 201
// only for a response that stays recorded. Found by an outside test
// (hostile5): before, the replay answered the original's 201 at once, and
// the fence then withdrew the response (52 of 79 such 201s on a stop, 25
// of 74 on a new limit).
//
// A submits and commits, and its fence is held; B, with the same key and
// body, then submits from another container. Each case is run with a key
// of its own (an Idempotency-Key's item) and with a session's own key
// (recorded on the session's claim: the hosted page's).
func TestReplayAnswersOnlyAResponseThatStands(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// run plays the case: a submits, held as it says; b replays.
		run func(t *testing.T, f *replayFixture)
	}{
		{
			// B reads the survey stopped: it waits for A's fence, which
			// withdraws the response; B then submits anew, and its own
			// fence refuses it. Before: B 201, A 410, none recorded.
			name: "stopped between the commit and the fence",
			run: func(t *testing.T, f *replayFixture) {
				a := f.submitHeld(t, false)
				f.stop(t)
				b := f.replayWhileHeld(t, true)
				f.release()
				ra, rb := <-a, <-b
				f.want(t, ra, survey.ErrSurveyClosed, rb, survey.ErrSurveyClosed, 0)
			},
		},
		{
			// B reads the survey open: it keeps the response, and A's
			// fence, reading the survey stopped since, withdraws nothing.
			// Before: B 201, A 410, none recorded.
			name: "stopped after the replay read it open",
			run: func(t *testing.T, f *replayFixture) {
				a := f.submitHeld(t, false)
				rb := <-f.replayWhileHeld(t, false)
				f.stop(t)
				f.release()
				ra := <-a
				f.want(t, ra, nil, rb, nil, 1)
				if ra.done.ID != rb.done.ID || !rb.done.Replayed {
					t.Errorf("A answered response %d, B %+v; want B the replay of A's", ra.done.ID, rb.done)
				}
			},
		},
		{
			// A limit of 1 is set over a response already recorded while
			// A is on its way: A commits after the limit's base was
			// counted, with no place of it, and its fence withdraws it
			// (no place is left). B waits for that, and is refused too.
			// Before: B 201, A 410, two recorded for a limit of 1.
			name: "a limit set while it was in flight",
			run: func(t *testing.T, f *replayFixture) {
				f.seedOne(t)
				a := f.submitHeld(t, true)
				f.setLimit(t, 1)
				f.send()
				b := f.replayWhileHeld(t, true)
				f.release()
				ra, rb := <-a, <-b
				f.want(t, ra, survey.ErrSurveyFull, rb, survey.ErrSurveyFull, 1)
			},
		},
		{
			// B waits for A's fence longer than a submission's race may
			// take (raceTimeLeft: ownerRetryFor without a deadline, as on
			// make run; on Lambda, until ownerReserve before it), and A's
			// fence then withdraws the response: B answers 410 as A's
			// fence did. Found outside (hostile6: twins of a key during a
			// stop on make run): B answered 503, or 409 "This session has
			// already responded" when its wait began on its way to that
			// refusal (a claim A's withdrawal then took back).
			name: "withdrawn after the replay waited past its race's time",
			run: func(t *testing.T, f *replayFixture) {
				a := f.submitHeld(t, false)
				f.stop(t)
				started := time.Now()
				b := f.replayWhileHeld(t, true)
				for time.Since(started) <= store.OwnerRetryFor+200*time.Millisecond {
					select {
					case r := <-b:
						t.Fatalf("B answered %+v, %v while A's fence was held; want it to wait for it", r.done, r.err)
					case <-time.After(100 * time.Millisecond):
					}
				}
				f.release()
				ra, rb := <-a, <-b
				f.want(t, ra, survey.ErrSurveyClosed, rb, survey.ErrSurveyClosed, 0)
			},
		},
		{
			// A's fence let the response stand before the stop; B, within
			// A's request's time, reads the survey stopped and waits until
			// that time has passed (A's fence decided): then the replay.
			name: "stopped after the fence let it stand",
			run: func(t *testing.T, f *replayFixture) {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				defer cancel()
				ra := f.submitNow(ctx)
				f.stop(t)
				waited := make(chan struct{})
				f.stB.OnReplayWait(func() { close(waited) })
				rb := f.submitB()
				f.want(t, ra, nil, rb, nil, 1)
				select {
				case <-waited:
				default:
					t.Error("B answered without waiting for A's request to end")
				}
				if ra.done.ID != rb.done.ID || !rb.done.Replayed {
					t.Errorf("A answered response %d, B %+v; want B the replay of A's", ra.done.ID, rb.done)
				}
			},
		},
		{
			// The same, B sent at the same instant as A (a double click:
			// the same deadline, as on Lambda): B still answers the
			// replay within its own time. hostile6: B answered 503, its
			// wait running to A's deadline and a second past it.
			name: "stopped after the fence let it stand, a copy of the same deadline",
			run: func(t *testing.T, f *replayFixture) {
				dl := time.Now().Add(5 * time.Second)
				ctxA, cancelA := context.WithDeadline(context.Background(), dl)
				defer cancelA()
				ra := f.submitNow(ctxA)
				f.stop(t)
				ctxB, cancelB := context.WithDeadline(context.Background(), dl)
				defer cancelB()
				d, err := f.stB.Submit(ctxB, f.sub())
				rb := replyOf{d, err}
				f.want(t, ra, nil, rb, nil, 1)
				if ra.done.ID != rb.done.ID || !rb.done.Replayed {
					t.Errorf("A answered response %d, B %+v; want B the replay of A's", ra.done.ID, rb.done)
				}
			},
		},
	}
	for _, c := range cases {
		for _, own := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/session key %v", c.name, own), func(t *testing.T) {
				t.Parallel()
				c.run(t, newReplayFixture(t, own))
			})
		}
	}
}

// replayFixture is a survey, an owner's container and two responders'
// (A the original, B its replay), and one submission's key and body.
type replayFixture struct {
	owner, stA, stB *store.Store
	account, survey int64
	sessionKey      bool
	key, session    string
	// before and after hold A just before its transaction and just after
	// it commits, until send and release.
	sendCh, releaseCh chan struct{}
	committed         chan struct{}
	// finished: the dispatch handled a batch of withdrawals' marks
	// (finishFromTheStream).
	finished chan struct{}
}

type replyOf struct {
	done store.Submitted
	err  error
}

func newReplayFixture(t *testing.T, sessionKey bool) *replayFixture {
	ctx := context.Background()
	owner := testenv.Container(t)
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	folder, err := owner.CreateFolder(ctx, a.ID, "replay", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv := testenv.NewSurvey(t, owner, a.ID, folder.ID, "replay")
	return &replayFixture{owner: owner, stA: testenv.Container(t), stB: testenv.Container(t), account: a.ID, survey: sv.ID,
		sessionKey: sessionKey, key: fmt.Sprintf("key-%d", sv.ID), session: fmt.Sprintf("sess-%d", sv.ID),
		sendCh: make(chan struct{}), releaseCh: make(chan struct{}), committed: make(chan struct{})}
}

// sub is the submission A and B both send.
func (f *replayFixture) sub() store.Submission {
	s := store.Submission{
		Response: survey.Response{SurveyID: f.survey, StartedAt: time.Now().Add(-time.Minute),
			Answers: map[int64]json.RawMessage{7: json.RawMessage(`"x"`)}},
		KeyHash: f.key, BodyHash: "b",
	}
	if f.sessionKey {
		s.Session, s.KeyOnClaim = f.session, true
	}
	return s
}

// submitHeld submits A, held after its commit until release (and, with
// beforeSend, before its transaction until send), and returns once it is
// held before or after as it says.
func (f *replayFixture) submitHeld(t *testing.T, beforeSend bool) chan replyOf {
	var once, onceSend sync.Once
	var before func()
	if beforeSend {
		before = func() { onceSend.Do(func() { <-f.sendCh }) }
	}
	f.stA.HoldSubmissions(before, func() { once.Do(func() { close(f.committed); <-f.releaseCh }) })
	out := make(chan replyOf, 1)
	go func() { d, err := f.stA.Submit(context.Background(), f.sub()); out <- replyOf{d, err} }()
	if !beforeSend {
		<-f.committed
	}
	return out
}

// send lets A's transaction go, and returns once it has committed.
func (f *replayFixture) send() {
	close(f.sendCh)
	<-f.committed
}

// release lets A's fence go.
func (f *replayFixture) release() { close(f.releaseCh) }

// replayWhileHeld submits B while A is held after its commit. With wait,
// it returns once B waits for A's fence; without, B's answer is its
// channel's (B does not wait).
func (f *replayFixture) replayWhileHeld(t *testing.T, wait bool) chan replyOf {
	waiting := make(chan struct{})
	var once sync.Once
	f.stB.OnReplayWait(func() { once.Do(func() { close(waiting) }) })
	out := make(chan replyOf, 1)
	go func() { out <- f.submitB() }()
	if wait {
		select {
		case <-waiting:
		case r := <-out:
			t.Fatalf("B answered %+v, %v while A's fence was held; want it to wait for it", r.done, r.err)
		}
	}
	return out
}

func (f *replayFixture) submitB() replyOf {
	d, err := f.stB.Submit(context.Background(), f.sub())
	return replyOf{d, err}
}

func (f *replayFixture) submitNow(ctx context.Context) replyOf {
	d, err := f.stA.Submit(ctx, f.sub())
	return replyOf{d, err}
}

func (f *replayFixture) stop(t *testing.T) {
	stop := true
	if err := f.owner.UpdateSettings(context.Background(), f.account, f.survey, store.SettingsUpdate{IsStopped: &stop}); err != nil {
		t.Fatal(err)
	}
}

func (f *replayFixture) setLimit(t *testing.T, n int64) {
	set := map[string]any{"response_limit": n, "response_limit_gen": time.Now().UnixNano()}
	if err := f.owner.UpdateSettings(context.Background(), f.account, f.survey, store.SettingsUpdate{Set: set}); err != nil {
		t.Fatal(err)
	}
}

// seedOne records a response of another responder.
func (f *replayFixture) seedOne(t *testing.T) {
	s := f.sub()
	s.KeyHash, s.Session, s.KeyOnClaim = "other", "", false
	if _, err := f.owner.Submit(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

// want checks A's and B's answers (nil: a response) and the responses
// recorded, and that every 201 answered is one of them.
func (f *replayFixture) want(t *testing.T, a replyOf, aErr error, b replyOf, bErr error, recorded int64) {
	t.Helper()
	ctx := context.Background()
	check := func(name string, r replyOf, want error) {
		t.Helper()
		switch {
		case want == nil && (r.err != nil || r.done.ID == 0):
			t.Errorf("%s: %+v, %v; want a response (201)", name, r.done, r.err)
		case want != nil && !errors.Is(r.err, want):
			t.Errorf("%s: %+v, %v; want %v", name, r.done, r.err, want)
		}
		if r.err == nil && r.done.ID != 0 {
			if _, err := f.owner.Response(ctx, f.account, f.survey, r.done.ID); err != nil {
				t.Errorf("%s answered response %d (201), which is not recorded: %v", name, r.done.ID, err)
			}
		}
	}
	check("A", a, aErr)
	check("B", b, bErr)
	if n, err := f.owner.CountResponses(ctx, f.survey, store.ResponseQuery{}); err != nil || n != recorded {
		t.Errorf("%d responses recorded (%v), want %d", n, err, recorded)
	}
}
