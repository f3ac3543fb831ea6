package responders_test

import (
	"context"
	"net"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/functions/responders"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/survey"
)

// submitFaults are the failures injected into a submission's calls.
var submitFaults = []struct {
	name string
	err  error
}{
	{"throttled", &types.ProvisionedThroughputExceededException{Message: aws.String("injected")}},
	{"timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}},
	{"internal error", &types.InternalServerError{Message: aws.String("injected")}},
	{"transaction conflict", &types.TransactionCanceledException{Message: aws.String("injected"), CancellationReasons: []types.CancellationReason{
		{Code: aws.String("None")}, {Code: aws.String("None")}, {Code: aws.String("TransactionConflict")}}}},
	// The call takes effect and its reply is lost: the client cannot tell.
	{"reply lost", &localaws.LostReply{Err: &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}}},
}

// TestSubmitFaults injects each fault at each DynamoDB call a submission
// makes (a cold container: the data key's read, the survey's Query, the id
// lease, the transaction, the key's read on the refusal path): the answer
// is 201 or a clean 503, never a half-written response. The count always
// equals the responses stored, a code or link is spent exactly when a
// response is stored, and a retry with the same key records the response
// once.
func TestSubmitFaults(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ops := []string{"GetItem", "Query", "UpdateItem", "TransactWriteItems"}
	for _, fault := range submitFaults {
		for _, op := range ops {
			t.Run(fault.name+"/"+op, func(t *testing.T) {
				slug, sid := f.survey(t, unique, "F")
				if _, err := f.st.CreateVariables(ctx, f.aid, sid, nil, 0, []survey.Variable{{Name: "v", Type: 1}}); err != nil {
					t.Fatal(err)
				}
				toks, err := f.sealer.Seal(ctx, sid, []links.Payload{{Unique: true, Values: []links.Value{{Name: "v", Kind: links.KindString, Str: "x"}}}})
				if err != nil {
					t.Fatal(err)
				}
				sess := f.session(t, slug, map[string]any{"code": "F", "qs": toks[0]})
				body := mustJSON(t, map[string]any{"session": sess, "answers": map[string]any{}})
				key := newKey()

				// A cold container: nothing cached, every call made.
				st, sealer := container(t)
				st.Now = f.st.Now
				h := testenv.Conform(responders.New(responders.Deps{Store: st, Sealer: sealer, Now: st.Now}))
				reqCtx, calls := awsenv.WithCalls(ctx)
				var hits atomic.Int64
				restore := localaws.InjectFaults(func(c context.Context, service, operation string) error {
					if awsenv.CallsFrom(c) == calls && service == "DynamoDB" && operation == op {
						hits.Add(1)
						return fault.err
					}
					return nil
				})
				req := httptest.NewRequest("POST", responsesPath(slug), strings.NewReader(body)).WithContext(reqCtx)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", key)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				restore()

				switch {
				case rec.Code == 201 && hits.Load() == 0:
				case rec.Code == 503:
					if rec.Header().Get("Retry-After") == "" || strings.Contains(rec.Body.String(), "injected") {
						t.Errorf("503 %v %s", rec.Header(), rec.Body)
					}
				default:
					t.Errorf("%d %s (%d faults hit, calls %v), want 503", rec.Code, rec.Body, hits.Load(), calls.Ops())
				}
				n, count := f.stored(t, sid)
				if int64(n) != count || n > 1 {
					t.Fatalf("%d responses stored, count %d", n, count)
				}
				if committed := fault.name == "reply lost" && op == "TransactWriteItems"; committed != (n == 1) {
					t.Errorf("%d responses stored after a %s at %s", n, fault.name, op)
				}
				codeFresh, err := f.st.CheckCode(ctx, sid, "F", true)
				if err != nil {
					t.Fatal(err)
				}
				linkUsed, err := f.st.LinkUsed(ctx, links.TokenID(toks[0]))
				if err != nil {
					t.Fatal(err)
				}
				if codeFresh == (n == 1) || linkUsed != (n == 1) {
					t.Errorf("%d responses, code fresh %v, link used %v: spent without a response, or a response without its spending", n, codeFresh, linkUsed)
				}

				// The client retries with its key: one response in all.
				r := f.submit(t, slug, key, body)
				r.submitted(t)
				if replayed := r.header.Get("Idempotent-Replayed") == "true"; replayed != (n == 1) {
					t.Errorf("retry marked replayed %v with %d response stored before it", replayed, n)
				}
				f.wantStored(t, "after the retry", sid, 1)
			})
		}
	}
	t.Logf("%d faults × %d calls", len(submitFaults), len(ops))
}
