package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// docsCase is a response's documents as a test submits them.
type docsCase struct {
	name    string
	answers map[int64]json.RawMessage
	vars    map[string]any
}

// docsCases are responses whose answers and variables must come back
// from the table exactly as they were given, however stored.
func docsCases() []docsCase {
	rnd := rand.New(rand.NewPCG(42, 42))
	letters := make([]byte, survey.MaxResponseBytes-200)
	for i := range letters {
		letters[i] = 'a' + byte(rnd.IntN(26))
	}
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	return []docsCase{
		{"persian", map[int64]json.RawMessage{11: str("ارسال سفارش دو روز دیر شد ولی بسته‌بندی خوب بود و پشتیبانی هم سریع جواب داد."),
			12: json.RawMessage(`[3,1]`)}, map[string]any{"شهر": "تهران"}},
		{"emoji", map[int64]json.RawMessage{11: str("👍🏽 great 🎉🎉 — \"quoted\" \\ and \u2028 a separator"), 12: json.RawMessage(`{"row":[1]}`)}, nil},
		{"empty answers", map[int64]json.RawMessage{}, map[string]any{}},
		{"no answers", nil, nil},
		{"variables", map[int64]json.RawMessage{11: json.RawMessage(`4.5`)},
			map[string]any{"utm_source": "newsletter", "n": json.Number("12345678901234567890"), "tags": []any{"a", "b"}, "ok": true}},
		{"near the limit", map[int64]json.RawMessage{11: str(string(letters))}, map[string]any{"v": "x"}},
	}
}

// sameDocs fails unless got carries want's answers and variables, byte
// for byte as JSON.
func sameDocs(t *testing.T, step string, got survey.Response, want docsCase) {
	t.Helper()
	wa, _ := json.Marshal(want.answers)
	ga, _ := json.Marshal(got.Answers)
	vars := want.vars
	if vars == nil {
		vars = map[string]any{}
	}
	wv, _ := json.Marshal(vars)
	gv, _ := json.Marshal(got.Variables)
	if string(ga) != string(wa) || string(gv) != string(wv) {
		t.Errorf("%s: answers %.80s variables %.80s, want %.80s and %.80s", step, ga, gv, wa, wv)
	}
}

// rawResponse is a response's item as the table holds it.
func rawResponse(t *testing.T, st *store.Store, sid, rid int64) map[string]types.AttributeValue {
	t.Helper()
	out, err := st.Client().GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(st.TableName()), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{
			store.AttrPK: &types.AttributeValueMemberS{Value: store.ResponsesShardPK(sid, store.ResponseShard(rid))},
			store.AttrSK: &types.AttributeValueMemberS{Value: store.ResponseSK(rid)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// packedForm fails unless the item holds its documents in one form only:
// compressed ("z", binary) or the two strings.
func packedForm(t *testing.T, step string, item map[string]types.AttributeValue, packed bool) {
	t.Helper()
	_, z := item["z"].(*types.AttributeValueMemberB)
	_, a := item["answers"]
	_, v := item["variables"]
	if z != packed || a == packed || v == packed {
		t.Errorf("%s: the item has z %v, answers %v, variables %v; want the documents packed %v, in one form", step, z, a, v, packed)
	}
}

// readEverywhere reads response rid through each reader of a response
// the store has (the owner's detail and list, the answer sheet, the
// edit's read, the webhooks' inputs) and holds each to want.
func readEverywhere(t *testing.T, st *store.Store, aid, sid, rid int64, want docsCase) {
	t.Helper()
	ctx := context.Background()
	got, err := st.Response(ctx, aid, sid, rid)
	if err != nil {
		t.Fatalf("detail: %v", err)
	}
	sameDocs(t, "detail", got, want)
	if got, err = st.ResponseOfSurvey(ctx, sid, rid); err != nil {
		t.Fatalf("answer sheet: %v", err)
	}
	sameDocs(t, "answer sheet", got, want)
	if got, err = st.StoredResponse(ctx, sid, rid); err != nil {
		t.Fatalf("stored response: %v", err)
	}
	sameDocs(t, "stored response", got, want)
	page, err := st.ResponsesPage(ctx, sid, store.ResponseQuery{Limit: 50})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	found := false
	for _, r := range page.Responses {
		if r.ID == rid {
			found = true
			sameDocs(t, "list", r, want)
		}
	}
	if !found {
		t.Errorf("list: response %d not on the page", rid)
	}
	in, err := st.ReadDeliveryInputs(ctx, []store.DeliveryKey{{SurveyID: sid, WebhookID: 1, ResponseID: rid, Created: time.Now()}})
	if err != nil {
		t.Fatalf("webhook inputs: %v", err)
	}
	sameDocs(t, "webhook inputs", in.Responses[rid], want)
}

// docsSurvey is a new account's survey.
func docsSurvey(t *testing.T, st *store.Store) (survey.Account, survey.Survey) {
	t.Helper()
	a, _ := testenv.NewAccount(t, survey.PlanEnterprise)
	f, err := st.CreateFolder(context.Background(), a.ID, "docs", nil)
	if err != nil {
		t.Fatal(err)
	}
	return a, testenv.NewSurvey(t, st, a.ID, f.ID, "docs")
}

// TestResponseDocsRoundTrip: a response's answers and variables (Persian
// text, emoji and escapes, empty and absent answers, variables of every
// JSON kind, answers near survey.MaxResponseBytes) come back exactly as
// submitted from every reader, stored compressed; an edit writes them the
// same way (the plain strings gone), keeping the variables it is not
// given; a deletion removes the item. Documents past MaxResponseBytes are
// refused on their JSON size, however well they compress (a contract of
// the API, not of storage).
func TestResponseDocsRoundTrip(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, sv := docsSurvey(t, st)
	for i, c := range docsCases() {
		done, err := st.Submit(ctx, store.Submission{
			Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now().Add(-time.Minute), Answers: c.answers, Variables: c.vars},
			KeyHash:  fmt.Sprint("docs-", i), BodyHash: "b",
		})
		if err != nil {
			t.Fatalf("%s: submit: %v", c.name, err)
		}
		packedForm(t, c.name+": submitted", rawResponse(t, st, sv.ID, done.ID), true)
		readEverywhere(t, st, a.ID, sv.ID, done.ID, c)

		edited := docsCase{name: c.name, answers: map[int64]json.RawMessage{}, vars: c.vars}
		for k, v := range c.answers {
			edited.answers[k] = v
		}
		edited.answers[99] = json.RawMessage(`"edited: ویرایش شد 👍"`)
		got, err := st.EditResponse(ctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: done.ID, Answers: edited.answers})
		if err != nil {
			t.Fatalf("%s: edit: %v", c.name, err)
		}
		sameDocs(t, c.name+": the edit's answer", got, edited)
		packedForm(t, c.name+": edited", rawResponse(t, st, sv.ID, done.ID), true)
		readEverywhere(t, st, a.ID, sv.ID, done.ID, edited)

		if err := st.DeleteResponse(ctx, a.ID, sv.ID, done.ID); err != nil {
			t.Fatalf("%s: delete: %v", c.name, err)
		}
		if _, err := st.Response(ctx, a.ID, sv.ID, done.ID); !errors.Is(err, survey.ErrNotFound) {
			t.Errorf("%s: after the delete: %v, want ENOTFOUND", c.name, err)
		}
	}

	// Past the limit by its JSON, a few KB compressed: refused as before.
	huge := map[int64]json.RawMessage{11: json.RawMessage(`"` + strings.Repeat("a", survey.MaxResponseBytes) + `"`)}
	_, err := st.Submit(ctx, store.Submission{
		Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now(), Answers: huge}, KeyHash: "docs-huge", BodyHash: "b",
	})
	if !errors.Is(err, survey.ErrResponseTooLarge) {
		t.Errorf("a submission past MaxResponseBytes: %v, want ErrResponseTooLarge", err)
	}
	done, err := st.Submit(ctx, store.Submission{
		Response: survey.Response{SurveyID: sv.ID, StartedAt: time.Now(), Answers: map[int64]json.RawMessage{11: json.RawMessage(`1`)}}, KeyHash: "docs-small", BodyHash: "b",
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.EditResponse(ctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: done.ID, Answers: huge}); !errors.Is(err, survey.ErrResponseTooLarge) {
		t.Errorf("an edit past MaxResponseBytes: %v, want ErrResponseTooLarge", err)
	}
}

// TestOldResponsesStillRead: a response item written before brotli, plain
// (the strings "answers" and "variables", before the documents were
// compressed) or in "z"'s first format (DEFLATE), reads exactly as before
// through every reader, nothing migrated; an edit rewrites it in the
// smaller form and an edit reverted (the survey closed meanwhile) leaves
// it as it was.
func TestOldResponsesStillRead(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, sv := docsSurvey(t, st)
	for _, form := range []struct {
		name   string
		put    func(context.Context, *store.Store, survey.Response) error
		packed bool
		attrs  []string
	}{
		{"plain", storetest.PutPlainResponse, false, []string{"answers", "variables"}},
		{"DEFLATE", storetest.PutDeflateResponse, true, []string{"z"}},
	} {
		for _, c := range docsCases() {
			c.name = form.name + ", " + c.name
			rid, err := st.NewID(ctx, store.KindResponse)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			if err := form.put(ctx, st, survey.Response{ID: rid, SurveyID: sv.ID, SubmittedAt: now, StartedAt: now,
				Answers: c.answers, Variables: c.vars}); err != nil {
				t.Fatal(err)
			}
			old := rawResponse(t, st, sv.ID, rid)
			packedForm(t, c.name+": old", old, form.packed)
			readEverywhere(t, st, a.ID, sv.ID, rid, c)

			// An edit the survey's close refuses is reverted to the item as it
			// was.
			edited := docsCase{name: c.name, answers: map[int64]json.RawMessage{7: json.RawMessage(`"new"`)}, vars: c.vars}
			stop := func(stopped bool) {
				if err := st.UpdateSettings(ctx, a.ID, sv.ID, store.SettingsUpdate{IsStopped: &stopped}); err != nil {
					t.Fatal(err)
				}
			}
			stop(true)
			if _, err := st.EditResponse(ctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: rid, Answers: edited.answers}); !errors.Is(err, survey.ErrSurveyClosed) {
				t.Fatalf("%s: an edit of a stopped survey: %v, want ErrSurveyClosed", c.name, err)
			}
			reverted := rawResponse(t, st, sv.ID, rid)
			packedForm(t, c.name+": reverted", reverted, form.packed)
			for _, name := range form.attrs {
				if !reflect.DeepEqual(reverted[name], old[name]) {
					t.Errorf("%s: reverted %s %v, was %v", c.name, name, reverted[name], old[name])
				}
			}
			stop(false)

			if _, err := st.EditResponse(ctx, store.ResponseEdit{SurveyID: sv.ID, ResponseID: rid, Answers: edited.answers}); err != nil {
				t.Fatalf("%s: edit: %v", c.name, err)
			}
			packedForm(t, c.name+": edited", rawResponse(t, st, sv.ID, rid), true)
			readEverywhere(t, st, a.ID, sv.ID, rid, edited)
		}
	}
}
