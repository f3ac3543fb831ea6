package responses_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/xuri/excelize/v2"

	"surveyservice/functions/responses"
	"surveyservice/functions/responses/workbook"
	"surveyservice/internal/ddblocal"
	"surveyservice/internal/storetest"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/exports"
	"surveyservice/shared/survey"
)

// BenchmarkExportJob exports a survey of BENCH_RESPONSES responses
// (default 100,000; `make test`'s bench-once runs 1,000) as the export job
// does on AWS: POST .../responses/exports/ queues the job on
// SQS; the export function's handler, given the queue's message, reads
// every response from DynamoDB Local and writes the file to S3 (moto) in
// parts; the job then answers succeeded and its rows, and the file, read
// back through the job's link, has a row per response, each response
// once. The responses are seeded straight into the table
// (storetest.ImportResponses: batch writes, 8 at a time), not through
// HTTP. Metrics of the job's run: seconds/op; dynamodb-calls/op,
// queries/op and items-read/op (the Queries' ScannedCount); s3-calls/op;
// peak-heap-MB (the Go heap's live objects, sampled every 5 ms: the
// function's memory is 512 MB); peak-rss-MB (this process's resident set,
// its peak reset before the run); file-MB. BENCH_EXPORT_FORMAT=1 exports
// an Excel workbook instead of the CSV (export_format=1).
func BenchmarkExportJob(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("BENCH_RESPONSES")); err == nil && v > 0 {
		n = v
	}
	xlsx := os.Getenv("BENCH_EXPORT_FORMAT") == "1"
	jobsPath := exportJobsPath
	if xlsx {
		jobsPath = func(sid int64) string { return exportJobsPath(sid) + "?export_format=1" }
	}
	f := newFixture(b)
	start := time.Now()
	const chunk = 5000
	for done := 0; done < n; done += chunk {
		rs := make([]survey.Response, min(chunk, n-done))
		for i := range rs {
			at := t0.Add(time.Duration(done+i) * time.Second)
			answer, _ := json.Marshal(fmt.Sprintf("answer number %d, with a few words of text as a responder writes them", done+i))
			rs[i] = survey.Response{SurveyID: f.sid, SubmittedAt: at, StartedAt: at.Add(-2 * time.Minute),
				Answers: map[int64]json.RawMessage{f.text: answer}, Variables: map[string]any{"city": "Tabriz", "age": json.Number(strconv.Itoa(20 + i%60))}}
		}
		if _, err := storetest.ImportResponses(context.Background(), f.st, rs); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d responses in %v", n, time.Since(start).Round(time.Millisecond))
	st := &scanCounter{Store: f.st}
	ex := responses.NewExporter(responses.ExporterDeps{Store: st, Exports: testenv.Exports(b), Workbook: responses.Workbooks(workbook.New), MaxAttempts: exports.MaxReceives})

	ops := map[string]int{}
	var dynamoCalls int
	var took time.Duration
	var peakHeap, peakRSS, fileBytes int64
	var items int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		r := f.do("POST", jobsPath(f.sid))
		if r.code != http.StatusAccepted {
			b.Fatalf("POST exports: %v", r)
		}
		id := decodeJobB(b, r).ID
		runtime.GC()
		resetPeakRSS(b)
		st.scanned.Store(0)
		ctx, c := awsenv.WithCalls(context.Background())
		sampler := startHeapSampler()
		b.StartTimer()
		began := time.Now()
		if handled := runExportJob(ctx, b, f.jobs, ex); handled != 1 {
			b.Fatalf("the export function handled %d messages, want the job's one", handled)
		}
		took += time.Since(began)
		b.StopTimer()
		peakHeap = max(peakHeap, sampler.stop())
		if rss, err := ddblocal.PeakRSS(os.Getpid()); err == nil {
			peakRSS = max(peakRSS, rss)
		}
		items += st.scanned.Load()
		dynamoCalls += c.DynamoDB()
		for op, k := range c.Ops() {
			ops[op] += k
		}

		r = f.do("GET", exportJobsPath(f.sid)+id+"/")
		done := decodeJobB(b, r)
		if done.Status != "succeeded" || done.Rows == nil || *done.Rows != int64(n) || done.Export == nil {
			b.Fatalf("after the run: %v", r)
		}
		count := countExport
		if xlsx {
			count = countXLSXExport
		}
		size, rows := count(b, f, relative(b, *done.Export))
		if rows != n {
			b.Fatalf("the file has %d responses, want %d", rows, n)
		}
		fileBytes = size
		b.StartTimer()
	}
	b.StopTimer()
	N := float64(b.N)
	var s3 int
	for op, k := range ops {
		if len(op) > 3 && op[:3] == "S3." {
			s3 += k
		}
	}
	b.ReportMetric(took.Seconds()/N, "seconds/op")
	b.ReportMetric(float64(dynamoCalls)/N, "dynamodb-calls/op")
	b.ReportMetric(float64(ops["DynamoDB.Query"])/N, "queries/op")
	b.ReportMetric(float64(items)/N, "items-read/op")
	b.ReportMetric(float64(s3)/N, "s3-calls/op")
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peakRSS)/(1<<20), "peak-rss-MB")
	b.ReportMetric(float64(fileBytes)/(1<<20), "file-MB")
	b.ReportMetric(float64(n), "rows")
	b.Logf("%d responses exported in %v: %v", n, (took / time.Duration(b.N)).Round(time.Millisecond), ops)
}

func decodeJobB(tb testing.TB, r reply) job {
	tb.Helper()
	var j job
	if err := json.Unmarshal(r.body, &j); err != nil {
		tb.Fatalf("job %v: %v", r, err)
	}
	return j
}

// runExportJob receives the queued job and hands it to the export
// function under ctx (which counts its AWS calls), deleting it after, as
// Lambda's event source mapping does; it answers the messages handled.
func runExportJob(ctx context.Context, tb testing.TB, q *jobQueue, e *responses.Exporter) int {
	tb.Helper()
	out, err := q.client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
	if err != nil {
		tb.Fatal(err)
	}
	var ev events.SQSEvent
	for _, m := range out.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body)})
	}
	res, err := e.Handle(ctx, ev)
	if err != nil || len(res.BatchItemFailures) > 0 {
		tb.Fatalf("the export function: %v, failures %v", err, res.BatchItemFailures)
	}
	for _, m := range out.Messages {
		if _, err := q.client.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(q.URL), ReceiptHandle: m.ReceiptHandle}); err != nil {
			tb.Fatal(err)
		}
	}
	return len(out.Messages)
}

// countExport follows an export link and reads the file as it arrives:
// its size and its responses, each of which must appear once.
func countExport(tb testing.TB, f *fixture, link string) (size int64, rows int) {
	tb.Helper()
	resp := openExport(tb, f, link)
	defer resp.Body.Close()
	counted := &countingReader{r: resp.Body}
	br := bufio.NewReaderSize(counted, 1<<20)
	if bom, err := br.Peek(3); err != nil || string(bom) != "\xEF\xBB\xBF" {
		tb.Fatalf("no UTF-8 BOM: %q %v", bom, err)
	}
	_, _ = br.Discard(3)
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	if _, err := cr.Read(); err != nil { // the header
		tb.Fatal(err)
	}
	seen := map[int64]bool{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatalf("the file, row %d: %v", rows+2, err)
		}
		id, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil || seen[id] {
			tb.Fatalf("row %d: id %q (seen before: %v)", rows+2, rec[0], seen[id])
		}
		seen[id] = true
		rows++
	}
	return counted.n, rows
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// resetPeakRSS resets this process's peak resident set (VmHWM), so that
// the next reading is the peak from now on.
func resetPeakRSS(tb testing.TB) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		tb.Logf("cannot reset the peak RSS (%v): peak-rss-MB includes the seeding", err)
	}
}

// heapSampler samples the heap's live objects until stopped.
type heapSampler struct {
	done chan struct{}
	wg   sync.WaitGroup
	peak int64
}

func startHeapSampler() *heapSampler {
	h := &heapSampler{done: make(chan struct{})}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			h.peak = max(h.peak, int64(s[0].Value.Uint64()))
			select {
			case <-h.done:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) stop() int64 {
	close(h.done)
	h.wg.Wait()
	return h.peak
}

// countXLSXExport downloads a workbook export and answers its size and its
// responses (rows past the header), each id once.
func countXLSXExport(tb testing.TB, f *fixture, link string) (size int64, rows int) {
	tb.Helper()
	resp := openExport(tb, f, link)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	wb, err := excelize.OpenReader(bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	defer wb.Close()
	it, err := wb.Rows(xlsxSheetName)
	if err != nil {
		tb.Fatal(err)
	}
	defer it.Close()
	seen := map[int64]bool{}
	for i := 0; it.Next(); i++ {
		cols, err := it.Columns()
		if err != nil {
			tb.Fatal(err)
		}
		if i == 0 {
			continue // the header
		}
		id, err := strconv.ParseInt(cols[0], 10, 64)
		if err != nil || seen[id] {
			tb.Fatalf("row %d: id %q (seen before: %v)", i+1, cols[0], seen[id])
		}
		seen[id] = true
		rows++
	}
	return int64(len(body)), rows
}

// openExport follows an export link (the service's redirect, then S3) and
// answers the file's response, 200.
func openExport(tb testing.TB, f *fixture, link string) *http.Response {
	tb.Helper()
	r := serve(f.h, "GET", link, "")
	if r.code != http.StatusFound {
		tb.Fatalf("export link: %v", r)
	}
	resp, err := http.Get(r.header.Get("Location"))
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		tb.Fatalf("GET the file: %d", resp.StatusCode)
	}
	return resp
}
