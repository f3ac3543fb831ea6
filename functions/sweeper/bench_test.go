package sweeper_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/functions/sweeper"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// BenchmarkSweep: a table of 10,000 surveys (BENCH_SURVEYS) of which 100 are due. The
// sweep reads the 100 due entries of its sparse index; a Scan-based sweep
// of the same table (shown for comparison only: the product never scans)
// reads every item of the table. Each iteration imports 100 fresh due
// surveys (timer stopped), scans for comparison (timer stopped, read-only)
// and runs the sweep (timed).
func BenchmarkSweep(b *testing.B) {
	const (
		due   = 100
		chunk = 500
	)
	total := testenv.BenchSize(b, "BENCH_SURVEYS", 10000)
	if total <= due {
		b.Fatalf("BENCH_SURVEYS=%d: want more than the %d due", total, due)
	}
	st := freshStore(b)
	ctx := context.Background()
	a, err := st.CreateAccount(ctx, survey.Account{Email: fmt.Sprintf("bench-%d@example.com", tableSeq.Add(1)), Plan: survey.PlanPro})
	if err != nil {
		b.Fatal(err)
	}
	fo, err := st.CreateFolder(ctx, a.ID, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	// The surveys not due: half with a later date (in the sweep index, not
	// due), half without a date (not in it).
	for n, i := total-due, 0; n > 0; i++ {
		date := ""
		if i%2 == 0 {
			date = later
		}
		importSurveys(b, st, a.ID, fo.ID, min(chunk, n), date)
		n -= min(chunk, n)
	}

	var (
		calls, read, closed int
		scanned, scanCalls  int
		iters               int
	)
	for b.Loop() {
		b.StopTimer()
		for n := due; n > 0; n -= 20 {
			importSurveys(b, st, a.ID, fo.ID, 20, yesterday) // spread over the shards
		}
		s, c, m := scanSweep(b, st, today)
		if iters == 0 && m != due {
			b.Fatalf("the scan found %d surveys due, want %d", m, due)
		}
		scanned, scanCalls = scanned+s, scanCalls+c
		cctx, counter := awsenv.WithCalls(ctx)
		b.StartTimer()

		res, err := sweeper.New(sweeper.Deps{Store: st}).Run(cctx, now)

		b.StopTimer()
		if err != nil || !res.Complete || res.Closed != due {
			b.Fatalf("Run = %+v, %v; want %d closed, complete", res, err, due)
		}
		calls += counter.DynamoDB()
		read += res.Read
		closed += res.Closed
		iters++
		b.StartTimer()
	}
	per := func(n int) float64 { return float64(n) / float64(iters) }
	b.ReportMetric(per(calls), "dynamodb-calls/op")
	b.ReportMetric(per(read), "items-read/op")
	b.ReportMetric(per(closed), "closed/op")
	b.ReportMetric(per(scanned), "scan-items-read/op")
	b.ReportMetric(per(scanCalls), "scan-calls/op")
	b.ReportMetric(float64(scanned)/float64(max(read, 1)), "items-read-ratio")
}

// scanSweep is the sweep a Scan would make: every item of the table read,
// the due surveys filtered out (not their read copies of the state). It answers the items read (ScannedCount), the
// calls, and the items matched.
func scanSweep(b *testing.B, st *store.Store, today string) (scanned, calls, matched int) {
	b.Helper()
	ctx, counter := awsenv.WithCalls(context.Background())
	in := &dynamodb.ScanInput{
		TableName:                aws.String(st.TableName()),
		FilterExpression:         aws.String("attribute_exists(expiration_date) AND expiration_date <= :today AND #sk <> :state"),
		ExpressionAttributeNames: map[string]string{"#sk": store.AttrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":today": &types.AttributeValueMemberS{Value: today},
			":state": &types.AttributeValueMemberS{Value: store.SurveyStateSK}, // the read copies of a survey's state carry its date too
		},
	}
	for {
		out, err := st.Client().Scan(ctx, in)
		if err != nil {
			b.Fatalf("scan: %v", err)
		}
		scanned += int(out.ScannedCount)
		matched += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return scanned, counter.DynamoDB(), matched
}
