package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestDeliveries: the event makes the delivery (a second create finds the
// first), pages come newest first with a cursor, and one batch read finds
// a delivery with its webhook and response.
func TestDeliveries(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	base := time.Now().UTC().Truncate(time.Microsecond).Add(-time.Hour)
	const wid, sid = 900001, 900002
	var ds []survey.Delivery
	for i := range 5 {
		d := survey.Delivery{WebhookID: wid, SurveyID: sid, ResponseID: int64(100 + i), Event: survey.EventResponseSubmitted,
			Created: base.Add(time.Duration(i) * time.Second), Status: survey.DeliveryPending}
		created, _, err := st.CreateDelivery(ctx, d, time.Time{})
		if err != nil || !created {
			t.Fatalf("create %d: %v %v", i, created, err)
		}
		ds = append(ds, d)
	}
	if ok, err := st.ClaimAttempt(ctx, ds[0], "tok", time.Now().Add(time.Minute)); !ok || err != nil {
		t.Fatalf("claim = %v %v", ok, err)
	}
	ds[0].Attempts, ds[0].Status, ds[0].LastStatusCode = 2, survey.DeliverySucceeded, 204
	if ok, err := st.RecordAttempt(ctx, ds[0], "tok", time.Time{}); !ok || err != nil {
		t.Fatalf("record = %v %v", ok, err)
	}
	again := ds[0]
	again.Status, again.Attempts = survey.DeliveryPending, 0
	created, current, err := st.CreateDelivery(ctx, again, time.Time{})
	if err != nil || created || current.Status != survey.DeliverySucceeded || current.Attempts != 2 {
		t.Fatalf("second create = %v %+v %v, want the recorded one", created, current, err)
	}
	var seen []int64
	cursor := ""
	for pages := 0; ; pages++ {
		page, more, err := st.Deliveries(ctx, wid, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page {
			seen = append(seen, d.ResponseID)
		}
		if !more {
			break
		}
		cursor = page[len(page)-1].ID()
		if pages > 5 {
			t.Fatal("too many pages")
		}
	}
	if fmt.Sprint(seen) != "[104 103 102 101 100]" {
		t.Fatalf("pages hold %v, want newest first", seen)
	}
	if _, _, err := st.Deliveries(ctx, wid, "garbage", 2); survey.ErrorCode(err) != survey.EINVALID {
		t.Fatalf("a bad cursor = %v", err)
	}
	if d, err := st.Delivery(ctx, wid, ds[3].ID()); err != nil || d.ResponseID != 103 {
		t.Fatalf("Delivery = %+v %v", d, err)
	}
	if _, err := st.Delivery(ctx, wid+1, ds[3].ID()); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatalf("another webhook's delivery = %v", err)
	}

	r := survey.Response{ID: 104, SurveyID: sid, SubmittedAt: base, StartedAt: base.Add(-time.Minute),
		Answers: map[int64]json.RawMessage{7: json.RawMessage(`"hi"`)}}
	if err := storetest.SeedResponses(ctx, st, []survey.Response{r}); err != nil {
		t.Fatal(err)
	}
	in, err := st.ReadDeliveryInputs(ctx, []store.DeliveryKey{{SurveyID: sid, WebhookID: wid, ResponseID: 104, Created: ds[4].Created}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := in.Deliveries[store.InputKey(wid, ds[4].ID())]; !ok {
		t.Errorf("the delivery was not read: %+v", in.Deliveries)
	}
	if got := in.Responses[104]; got.SurveyID != sid || string(got.Answers[7]) != `"hi"` {
		t.Errorf("the response read is %+v", got)
	}
	if len(in.Webhooks) != 0 {
		t.Errorf("webhooks read for a survey that has none: %v", in.Webhooks)
	}
}
