package responders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/responders"
	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// rulesSurvey makes a survey of n questions (scales, single choices and
// texts in turn) whose questions after the first each carry rules display
// rules over earlier ones (at least, includes, contains; and-ed, every
// fifth or-ed), written through the store as the elements function writes
// them (validated, indexed in the layout), and answers to every question
// that show them all.
func rulesSurvey(b *testing.B, f fixture, n, rules int) (slug string, sid int64, answers map[string]any) {
	b.Helper()
	ctx := context.Background()
	slug, sid = f.survey(b, nil)
	// Written on the direct client of the test's table (the container's
	// goes through the tests' one front for every service).
	st := testenv.Store(b)
	ids, err := st.NewIDs(ctx, store.KindChoice, 2*n)
	if err != nil {
		b.Fatal(err)
	}
	qs := make([]survey.Element, 0, n)
	answers = map[string]any{}
	for i := range n {
		var e survey.Element
		switch i % 3 {
		case 0:
			e = survey.NewElement(survey.TypeOpinionScale)
		case 1:
			e = survey.NewElement(survey.TypeMultipleChoice)
			e.Choices = []survey.ChoiceItem{{ID: ids[2*i], Name: "a", Order: 1}, {ID: ids[2*i+1], Name: "b", Order: 2}}
		case 2:
			e = survey.NewElement(survey.TypeText)
		}
		e.Title = fmt.Sprintf("Question %d", i+1)
		for r := 0; r < rules && i > 0; r++ {
			first := qs[(i*7+r*13)%i]
			c := survey.Condition{FirstOperand: first.ID}
			switch first.Type {
			case survey.TypeOpinionScale:
				v := "3"
				c.ArithmeticOperator, c.SecondOperand = survey.OpAtLeast, &survey.Operand{Type: 2, Value: &v}
			case survey.TypeMultipleChoice:
				cid := first.Choices[0].ID
				c.ArithmeticOperator, c.SecondOperand = survey.OpIncludes, &survey.Operand{Type: 1, ID: &cid}
			case survey.TypeText:
				v := "LOVE"
				c.ArithmeticOperator, c.SecondOperand = survey.OpContains, &survey.Operand{Type: 3, Value: &v}
			}
			if r > 0 {
				l := int64(survey.LogicAnd)
				if r%5 == 0 {
					l = survey.LogicOr
				}
				c.LogicalOperator = &l
			}
			e.Conditions = append(e.Conditions, c)
		}
		ch, err := st.CreateElement(ctx, f.aid, sid, e, survey.Placement{})
		if err != nil {
			b.Fatalf("question %d: %v", i+1, err)
		}
		e = ch.Element
		qs = append(qs, e)
		key := strconv.FormatInt(e.ID, 10)
		switch e.Type {
		case survey.TypeOpinionScale:
			answers[key] = 5
		case survey.TypeMultipleChoice:
			answers[key] = []int64{e.Choices[0].ID}
		case survey.TypeText:
			answers[key] = "I love 12 cats"
		}
	}
	return slug, sid, answers
}

// BenchmarkSubmitRules is one submission to a survey of 200 questions,
// without rules and with 20 display rules on each question (contract
// section 15), on a warm container and on a cold one:
//
//   - warm: the container submitted to the survey before (the steady
//     state of a live survey): its slug, data key, id lease and the survey's
//     decoded collection are cached (pubcache.go), so the handler reads
//     the survey item alone and decodes no rule;
//   - cold: a new container for each submission (its own store and
//     sealer, as a Lambda cold start has): the slug, the data key and the
//     id lease are read again, and the survey's whole item collection is
//     Queried and decoded, the 4,000 rules' JSON with it; the same as the
//     first submission after an owner's change of the survey, plus the
//     container's own first reads.
//
// handler-µs/op is the handler's own time (the emulator's subtracted),
// aim under 1 ms warm with the rules; check-µs/op the handler's checks of
// the response alone (responding.Build: the answers, the rules'
// evaluation, the score) on the collection as the handler reads it, whose
// difference between rules=0 and rules=20 is what evaluating the rules at
// submission costs; dynamodb-calls/op and collection-queries/op count the
// calls (the rules change neither).
func BenchmarkSubmitRules(b *testing.B) {
	const questions = 200
	for _, rules := range []int{0, 20} {
		b.Run(fmt.Sprintf("rules=%d", rules), func(b *testing.B) {
			f := newFixture(b)
			slug, sid, answers := rulesSurvey(b, f, questions, rules)
			for _, warm := range []bool{true, false} {
				name := "cold"
				if warm {
					name = "warm"
				}
				b.Run(name, func(b *testing.B) {
					body := f.sessionBody(b, slug, answers)
					f.submit(b, slug, newKey(), body).submitted(b) // the fixture's container: slug, data key, id lease, collection
					var dynamo, queries, n int
					var own time.Duration
					b.ReportAllocs()
					for b.Loop() {
						h, st := f.h, f.st
						b.StopTimer()
						body = f.sessionBody(b, slug, answers) // a session records one response
						b.StartTimer()
						if !warm {
							b.StopTimer()
							var sealer *links.Sealer
							st, sealer = container(b)
							h = testenv.Conform(responders.New(responders.Deps{Store: st, Sealer: sealer, Now: time.Now}))
							b.StartTimer()
						}
						before := st.CollectionCacheStats().Misses
						req := httptest.NewRequest("POST", responsesPath(slug), strings.NewReader(body))
						req.Header.Set("Content-Type", "application/json")
						req.Header.Set("Idempotency-Key", newKey())
						ctx, calls := awsenv.WithCalls(req.Context())
						rec := httptest.NewRecorder()
						start := time.Now()
						h.ServeHTTP(rec, req.WithContext(ctx))
						own += time.Since(start) - calls.Elapsed()
						if rec.Code != 201 {
							b.Fatalf("%d %s", rec.Code, rec.Body)
						}
						dynamo += calls.DynamoDB()
						queries += int(st.CollectionCacheStats().Misses - before)
						n++
					}
					b.ReportMetric(float64(own.Microseconds())/float64(n), "handler-µs/op")
					b.ReportMetric(float64(dynamo)/float64(n), "dynamodb-calls/op")
					b.ReportMetric(float64(queries)/float64(n), "collection-queries/op")
					if warm && queries != 0 {
						b.Fatalf("a warm container Queried the survey %d times", queries)
					}
					if !warm && queries != n {
						b.Fatalf("%d cold containers Queried the survey %d times", n, queries)
					}
					if !warm {
						return
					}
					// The checks alone, on the collection as the handler reads it.
					c, err := f.st.PublicCollection(context.Background(), sid, true)
					if err != nil {
						b.Fatal(err)
					}
					req := responding.Request{Answers: map[string]json.RawMessage{}}
					for k, v := range answers {
						req.Answers[k] = json.RawMessage(mustJSON(b, v))
					}
					sess := responding.Session{StartedAt: time.Now()}
					start := time.Now()
					for range n {
						if _, err := responding.Build(c, sess, req, time.Now()); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(time.Since(start).Microseconds())/float64(n), "check-µs/op")
					b.ReportMetric(float64(len(body)), "body-bytes")
				})
			}
		})
	}
}
