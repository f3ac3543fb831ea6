package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"surveyservice/shared/store"
	"surveyservice/shared/survey"
	"surveyservice/shared/webhook"
)

// sessionHash is the hash of the session of partialRecord.
var sessionHash = strings.Repeat("ab", 32)

// partialRecord is a stream record of a partial's save: its header
// (store/partials.go).
func partialRecord(event string, notify bool, extra ...string) events.DynamoDBEventRecord {
	s := events.NewStringAttribute
	n := events.NewNumberAttribute
	img := map[string]events.DynamoDBAttributeValue{
		"PK": s("RESPONSES#00000000000000000007#3"), "SK": s("SESSION#" + sessionHash), "partial_id": n("41"), "survey_id": n("7"),
		"last_page": n("2"), "started_at": s("2026-11-27T10:00:00.000000Z"), "updated_at": s("2026-11-27T10:05:00.000000Z"),
		"answers": s(`{"5":"Ann"}`), "variables": s(`{"city":"Tabriz"}`),
	}
	for i := 0; i+1 < len(extra); i += 2 {
		img[extra[i]] = n(extra[i+1])
	}
	if notify {
		img["notify"] = events.NewBooleanAttribute(true)
	}
	return events.DynamoDBEventRecord{EventName: event, Change: events.DynamoDBStreamRecord{
		Keys: map[string]events.DynamoDBAttributeValue{"PK": img["PK"], "SK": img["SK"]}, NewImage: img, SequenceNumber: "1"}}
}

// entryRecord is the put of a partial's list entry, marked as no save
// marks it now: an entry is put before its save's header or delta, so a
// save that lost its race (to the session's other tab, or its
// submission) put one too, and only the header says which won. Not sent.
func entryRecord() events.DynamoDBEventRecord {
	rec := partialRecord("INSERT", true)
	img := rec.Change.NewImage
	img["session_pk"], img["session"] = img["PK"], events.NewStringAttribute(sessionHash)
	img["PK"], img["SK"] = events.NewStringAttribute("PIDX#00000000000000000007#03"), events.NewStringAttribute("2026-11-27T10:05:00.000000Z#00000000000000000041")
	rec.Change.Keys = map[string]events.DynamoDBAttributeValue{"PK": img["PK"], "SK": img["SK"]}
	return rec
}

type fakeStore struct {
	created []survey.Delivery
	heads   []store.PartialHead
	atDelta []string
}

func (f *fakeStore) WebhooksOf(context.Context, int64) ([]survey.Webhook, error) {
	return []survey.Webhook{{ID: 1, SurveyID: 7, Active: true, Events: []string{survey.EventResponsePartial}},
		{ID: 2, SurveyID: 7, Active: true, Events: []string{survey.EventResponseSubmitted}}}, nil
}

func (f *fakeStore) CapsFilled(context.Context, int64, []store.AllowanceWrite) ([]store.CapFill, error) {
	return nil, nil
}

func (f *fakeStore) FinishWithdrawal(context.Context, string) error { return nil }

func (f *fakeStore) CreateDelivery(_ context.Context, d survey.Delivery, _ time.Time) (bool, survey.Delivery, error) {
	f.created = append(f.created, d)
	return true, d, nil
}

func (f *fakeStore) PartialAnswers(_ context.Context, h store.PartialHead) (map[int64]json.RawMessage, error) {
	f.heads = append(f.heads, h)
	return map[int64]json.RawMessage{5: json.RawMessage(`"Ann"`), 6: json.RawMessage(`"Tabriz"`)}, nil
}

// PartialAtDelta finds delta 2 of sessionHash at 10:06 (the partial of
// partialRecord, a page on), and no other.
func (f *fakeStore) PartialAtDelta(_ context.Context, pk, hash string, n int, updated string) (store.Partial, bool, error) {
	f.atDelta = append(f.atDelta, fmt.Sprint(pk, " ", hash, " ", n, " ", updated))
	if hash != sessionHash || n != 2 || updated != "2026-11-27T10:06:00.000000Z" {
		return store.Partial{}, false, nil
	}
	return store.Partial{ID: 41, SurveyID: 7, LastPage: 3, StartedAt: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC),
		UpdatedAt: time.Date(2026, 11, 27, 10, 6, 0, 0, time.UTC), Answers: map[int64]json.RawMessage{5: json.RawMessage(`"Ann"`)}}, true, nil
}

// deltaRecord is the put of a marked delta written instead of the header
// (store.SavePartial): its image carries the partial's state, not its id,
// survey or variables, which the header has.
func deltaRecord(n int, updated string) events.DynamoDBEventRecord {
	s := events.NewStringAttribute
	img := map[string]events.DynamoDBAttributeValue{
		"PK": s("SESSION#00000000000000000007#" + sessionHash), "SK": s(fmt.Sprintf("SESSION#%s#D#%05d", sessionHash, n)),
		"answers": s(`{"5":"Ann"}`), "updated_at": s(updated), "last_page": events.NewNumberAttribute("3"),
		"deltas": events.NewNumberAttribute(fmt.Sprint(n + 1)), "notify": events.NewBooleanAttribute(true),
	}
	return events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{
		Keys: map[string]events.DynamoDBAttributeValue{"PK": img["PK"], "SK": img["SK"]}, NewImage: img, SequenceNumber: "1"}}
}

// TestPartialEventFromADelta: the session's first save in a minute that
// writes a delta instead of the header marks the delta; its delivery is
// the partial the delta carries (the header's id and times, the delta's
// page), read from the session's items. A delta its save took back (the
// save found the session responded, and answered 409) sends nothing.
func TestPartialEventFromADelta(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  events.DynamoDBEventRecord
		want int
	}{
		{"the delta there", deltaRecord(2, "2026-11-27T10:06:00.000000Z"), 1},
		{"the delta taken back", deltaRecord(2, "2026-11-27T10:07:00.000000Z"), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !Matches(tc.rec) {
				t.Fatal("a marked delta's record does not match the filter")
			}
			st, q := &fakeStore{}, &fakeQueue{}
			if _, err := New(Deps{Store: st, Queue: q}).Handle(context.Background(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{tc.rec}}); err != nil {
				t.Fatal(err)
			}
			if len(st.atDelta) != 1 || st.atDelta[0] != "SESSION#00000000000000000007#"+sessionHash+" "+sessionHash+" 2 "+tc.rec.Change.NewImage["updated_at"].String() {
				t.Errorf("read %v, want the session's delta 2", st.atDelta)
			}
			if len(st.created) != tc.want || len(q.jobs) != tc.want {
				t.Fatalf("%d deliveries, %d jobs, want %d", len(st.created), len(q.jobs), tc.want)
			}
			if tc.want == 0 {
				return
			}
			var v survey.PartialView
			if dl := st.created[0]; json.Unmarshal(dl.Payload, &v) != nil || dl.ResponseID != 41 || dl.SurveyID != 7 || v.LastPage != 3 ||
				v.UpdatedAt != "2026-11-27T10:06:00.000000Z" || string(v.Answers["5"]) != `"Ann"` {
				t.Errorf("delivery %+v, view %+v", dl, v)
			}
		})
	}
}

type fakeQueue struct{ jobs []webhook.Job }

func (q *fakeQueue) Send(_ context.Context, jobs []webhook.Job, _ time.Duration) error {
	q.jobs = append(q.jobs, jobs...)
	return nil
}

// TestPartialEvents: a partial's notifying write (the session's first in
// a minute) makes one response.partial delivery for the webhooks that
// subscribe to it, carrying the owner's view of the partial; its other
// writes make none.
func TestPartialEvents(t *testing.T) {
	cases := []struct {
		name  string
		rec   events.DynamoDBEventRecord
		match bool
	}{
		{"first write", partialRecord("INSERT", true), true},
		{"a later first in its minute", partialRecord("MODIFY", true), true},
		{"within the minute", partialRecord("MODIFY", false), false},
		{"removed", partialRecord("REMOVE", true), false},
		{"with deltas", partialRecord("MODIFY", true, "delta_base", "1", "deltas", "3"), true},
		{"a list entry", entryRecord(), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Matches(tc.rec); got != tc.match {
				t.Fatalf("Matches %v, want %v", got, tc.match)
			}
			st, q := &fakeStore{}, &fakeQueue{}
			d := New(Deps{Store: st, Queue: q})
			if _, err := d.Handle(context.Background(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{tc.rec}}); err != nil {
				t.Fatal(err)
			}
			want := 0
			if tc.match {
				want = 1
			}
			if len(st.created) != want || len(q.jobs) != want {
				t.Fatalf("%d deliveries, %d jobs, want %d", len(st.created), len(q.jobs), want)
			}
			if want == 0 {
				return
			}
			dl := st.created[0]
			var v survey.PartialView
			if err := json.Unmarshal(dl.Payload, &v); err != nil {
				t.Fatal(err)
			}
			if tc.name == "with deltas" {
				// The deltas' answers are read (store.PartialAnswers) for
				// the header's range; the pending answers come with them.
				if len(st.heads) != 1 || st.heads[0] != (store.PartialHead{Session: sessionHash, Base: 1, Deltas: 3, Pending: `{"5":"Ann"}`, ID: 41, SurveyID: 7,
					PartitionKey: "RESPONSES#00000000000000000007#3"}) || string(v.Answers["6"]) != `"Tabriz"` {
					t.Errorf("heads read %+v, view %+v", st.heads, v)
				}
			} else if len(st.heads) != 0 {
				t.Errorf("a partial without deltas read them: %+v", st.heads)
			}
			if dl.WebhookID != 1 || dl.Event != survey.EventResponsePartial || dl.ResponseID != 41 || v.ID != 41 || v.LastPage != 2 ||
				string(v.Answers["5"]) != `"Ann"` || v.DurationSeconds != 300 || v.UpdatedAt != "2026-11-27T10:05:00.000000Z" {
				t.Errorf("delivery %+v, view %+v", dl, v)
			}
			body, err := survey.PartialEvent(dl.SurveyID, dl.Created, dl.Payload)
			if err != nil {
				t.Fatal(err)
			}
			var ev struct {
				Type string
				Data struct {
					SurveyID int64 `json:"survey_id"`
					Response map[string]any
				}
			}
			if err := json.Unmarshal(body, &ev); err != nil || ev.Type != "response.partial" || ev.Data.SurveyID != 7 || ev.Data.Response["last_page"] != float64(2) {
				t.Errorf("event body %s", body)
			}
			if _, has := ev.Data.Response["submitted_at"]; has {
				t.Errorf("a partial's event has submitted_at: %s", body)
			}
		})
	}
}
