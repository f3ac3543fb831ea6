package store_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestDeliveryClaimsMakeOneChain: twenty copies of a job race for an
// attempt, round after round (a retried stream batch, a manual retry, the
// retrier and a delayed message at once): each round one claims it, so
// the attempts count exactly the rounds; a record on a lost or stale claim
// changes nothing; a late failure cannot overwrite `succeeded`.
func TestDeliveryClaimsMakeOneChain(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	d := survey.Delivery{WebhookID: 910001, SurveyID: 910002, ResponseID: 7, Event: survey.EventResponseSubmitted,
		Created: now, Status: survey.DeliveryPending}
	if created, _, err := st.CreateDelivery(ctx, d, now.Add(time.Minute)); !created || err != nil {
		t.Fatal(created, err)
	}
	const rounds, copies = 4, 20
	for round := range rounds {
		var wins atomic.Int32
		var winner atomic.Value
		var wg sync.WaitGroup
		for c := range copies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				seen := d
				seen.Attempts = round
				tok := fmt.Sprintf("r%d-c%d", round, c)
				ok, err := st.ClaimAttempt(ctx, seen, tok, time.Now().Add(time.Minute))
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
					winner.Store(tok)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("round %d: %d copies claimed the attempt, want 1", round, wins.Load())
		}
		out := d
		out.Attempts, out.LastStatusCode, out.LastAttempt, out.NextAttempt = round+1, 500, now, now.Add(time.Minute)
		if ok, err := st.RecordAttempt(ctx, out, "not-the-winner", now.Add(time.Minute)); ok || err != nil {
			t.Fatalf("a record on another's claim = %v %v", ok, err)
		}
		if ok, err := st.RecordAttempt(ctx, out, winner.Load().(string), now.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("round %d: record = %v %v", round, ok, err)
		}
		// A stale copy (queued for the attempt just made) claims nothing.
		stale := d
		stale.Attempts = round
		if ok, _ := st.ClaimAttempt(ctx, stale, "stale", time.Now().Add(time.Minute)); ok {
			t.Fatalf("round %d: a stale copy claimed an attempt", round)
		}
	}
	got, err := st.Delivery(ctx, d.WebhookID, d.ID())
	if err != nil || got.Attempts != rounds || got.Status != survey.DeliveryPending {
		t.Fatalf("after %d rounds the delivery reads %+v %v", rounds, got, err)
	}
	// Succeeded, then a late failure of a lapsed claim: succeeded stays.
	at := got
	if ok, _ := st.ClaimAttempt(ctx, at, "ok", time.Now().Add(time.Minute)); !ok {
		t.Fatal("no claim")
	}
	win := at
	win.Attempts, win.Status, win.LastStatusCode, win.NextAttempt = rounds+1, survey.DeliverySucceeded, 204, time.Time{}
	if ok, err := st.RecordAttempt(ctx, win, "ok", time.Time{}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	late := at
	late.Attempts, late.Status, late.LastStatusCode = rounds+1, survey.DeliveryFailed, 500
	if ok, _ := st.RecordAttempt(ctx, late, "ok", time.Time{}); ok {
		t.Fatal("a late failure was recorded over the success")
	}
	got, _ = st.Delivery(ctx, d.WebhookID, d.ID())
	if got.Status != survey.DeliverySucceeded || got.Attempts != rounds+1 || got.LastStatusCode != 204 {
		t.Fatalf("the success reads %+v", got)
	}
	// The owner's retry of a success sends it again (contract section
	// 13): one more attempt of the same delivery, claimed as any other.
	again, err := st.RetryDelivery(ctx, win, now)
	if err != nil || again.Status != survey.DeliveryPending || again.Attempts != rounds+1 {
		t.Fatalf("a manual retry of a success = %+v, %v; want it pending at attempt %d", again, err, rounds+1)
	}
	if ok, _ := st.ClaimAttempt(ctx, again, "stale", now.Add(time.Minute)); !ok {
		t.Fatal("the retry's attempt could not be claimed")
	}
}

// TestDueIndex: a pending delivery is found due at its time and not
// before, a requeue moves it (once: a second requeue of the same read
// changes nothing), and a final status takes it out of the index.
func TestDueIndex(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	// Far in the future: no other test's deliveries are due then.
	base := time.Now().UTC().Add(50 * 365 * 24 * time.Hour).Truncate(time.Millisecond)
	wid := int64(920000 + time.Now().UnixNano()%1000)
	var ds []survey.Delivery
	for i := range 40 {
		d := survey.Delivery{WebhookID: wid, SurveyID: 920001, ResponseID: int64(i + 1), Event: survey.EventResponseSubmitted,
			Created: time.Now().UTC().Truncate(time.Microsecond), Status: survey.DeliveryPending}
		if _, _, err := st.CreateDelivery(ctx, d, base.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	due := func(at time.Time) []store.DueDelivery {
		var out []store.DueDelivery
		for shard := range store.DueShards {
			page, _, err := st.DueDeliveries(ctx, shard, at, nil, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range page {
				if d.WebhookID == wid {
					out = append(out, d)
				}
			}
		}
		return out
	}
	if got := due(base.Add(-time.Second)); len(got) != 0 {
		t.Fatalf("%d due before their time", len(got))
	}
	got := due(base.Add(9 * time.Second))
	if len(got) != 10 {
		t.Fatalf("%d due after 9 s, want 10", len(got))
	}
	if ok, err := st.Requeue(ctx, got[0], base.Add(time.Hour)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := st.Requeue(ctx, got[0], base.Add(time.Hour)); ok {
		t.Fatal("the same read requeued twice")
	}
	if n := len(due(base.Add(9 * time.Second))); n != 9 {
		t.Fatalf("%d due after a requeue, want 9", n)
	}
	// A success leaves the index.
	d := got[1].Delivery
	if ok, _ := st.ClaimAttempt(ctx, d, "t", time.Now().Add(time.Minute)); !ok {
		t.Fatal("no claim")
	}
	d.Attempts, d.Status = 1, survey.DeliverySucceeded
	if ok, err := st.RecordAttempt(ctx, d, "t", time.Time{}); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if n := len(due(base.Add(time.Hour * 2))); n != 39 {
		t.Fatalf("%d due at the end, want 39 (one succeeded)", n)
	}
}
