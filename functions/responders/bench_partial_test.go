package responders_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/shared/store"
)

// wcu is the write units of writing an item of n bytes (1 KB each,
// rounded up; DynamoDB's rule).
func wcu(n int) float64 { return math.Ceil(float64(max(n, 1)) / 1024) }

// BenchmarkPartialWrites: what a partial costs in writes (contract
// section 20), on the survey of 50 questions (a page each), answered
// page by page: each page turn's PUT is one GetItem and one PutItem of the
// session's own item, whose size grows with the answers; its write units
// are the item's on the table and twice on GSI1 (the index key moves with
// updated_at: a delete and a put). The submission's transaction then
// replaces the partial with the session's claim: the claim's Put is
// charged on the larger of the two items, doubled as every transactional
// write, and the partial leaves GSI1 (one delete). Reported: the units of
// a page turn (mean over the 50, and the last, largest), and what the
// partial adds to the submission's transaction.
func BenchmarkPartialWrites(b *testing.B) {
	f := newFixture(b)
	slug, sid, answers := fiftyQuestions(b, f)
	ctx := context.Background()
	if err := f.st.UpdateSettings(ctx, f.aid, sid, store.SettingsUpdate{Set: map[string]any{"partial_responses": true}}); err != nil {
		b.Fatal(err)
	}
	keys := make([]string, 0, len(answers))
	for k := range answers {
		keys = append(keys, k)
	}
	sort.Strings(keys) // element ids in creation order: the pages' order
	db := f.st.Client()
	var turn, last float64
	var size int
	for b.Loop() {
		sess := f.session(b, slug, nil)
		sum := sha256.Sum256([]byte(sess))
		h := hex.EncodeToString(sum[:])
		turn = 0
		soFar := map[string]any{}
		for page, k := range keys {
			soFar[k] = answers[k]
			if r := f.putPartial(b, slug, map[string]any{"session": sess, "page": page, "answers": soFar}); r.code != 204 {
				b.Fatalf("PUT page %d: %d %s", page, r.code, r.body)
			}
			g, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(f.st.TableName()), ConsistentRead: aws.Bool(true),
				Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: store.SessionPK(sid, h)},
					"SK": &types.AttributeValueMemberS{Value: store.SessionSK(h)}}})
			if err != nil {
				b.Fatal(err)
			}
			size = store.ItemsSize([]map[string]types.AttributeValue{g.Item})
			last = wcu(size) + 2*wcu(size) // table, and GSI1's delete and put
			if page == 0 {
				last = wcu(size) * 2 // the first: a new item, one GSI1 put
			}
			turn += last
		}
		f.respond(b, slug, sess, answers).submitted(b)
	}
	claim := 100 // bytes: keys, response_id, submitted_at
	b.ReportMetric(turn/float64(len(keys)), "WCU/page-turn")
	b.ReportMetric(last, "WCU/last-page-turn")
	b.ReportMetric(float64(size), "partial-bytes")
	b.ReportMetric(2*wcu(max(size, claim))+wcu(size)-2*wcu(claim), "WCU-added-to-submission")
	b.Logf("a partial of 50 answers: %d bytes; a page turn %.1f WCU on average, %.0f at the last; "+
		"the submission's transaction pays %.0f WCU more for replacing it (claim put on the partial's size, doubled, and its GSI1 delete)",
		size, turn/float64(len(keys)), last, 2*wcu(max(size, claim))+wcu(size)-2*wcu(claim))
}
