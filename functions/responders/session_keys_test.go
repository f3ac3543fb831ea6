package responders_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/store"
)

// TestSessionItemsWhereTheirTokenSays: a session started now keeps its
// items (its partial's header and deltas, then its claim on its response)
// on a partition key of its own, SESSION#<sid>#<hash>, which no other
// session of the survey writes; a session sealed before that (its token
// without the mark) keeps them in its survey's responses' partitions,
// where it wrote them, and is never looked for in two places. Either way
// the owner lists the partial (its deltas included), another device
// resumes it, the response replaces it in the submission's transaction,
// and the session responds once.
func TestSessionItemsWhereTheirTokenSays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		legacy bool
	}{{"started now", false}, {"sealed before", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t)
			slug, sid, req, opt := f.partialSurvey(t, nil)
			rk, ok := strconv.FormatInt(req, 10), strconv.FormatInt(opt, 10)
			var sess string
			if tc.legacy {
				// A token as sessions were sealed before: no mark.
				tok, err := f.sealer.SealFor(ctx, links.PurposeSession, sid, responding.Session{StartedAt: time.Now().UTC().Truncate(time.Microsecond)}.Encode())
				if err != nil {
					t.Fatal(err)
				}
				sess = tok
			} else {
				sess = f.session(t, slug, nil)
			}
			sum := sha256.Sum256([]byte(sess))
			hash := hex.EncodeToString(sum[:])
			place, elsewhere := store.SessionPK(sid, hash), store.SessionLegacyPK(sid, hash)
			if tc.legacy {
				place, elsewhere = elsewhere, place
			}
			items := func(pk string) []map[string]any {
				t.Helper()
				var out []map[string]any
				if err := f.db().Table(f.st.TableName()).Get(store.AttrPK, pk).Range(store.AttrSK, dynamo.BeginsWith, store.SessionSK(hash)).
					Consistent(true).All(ctx, &out); err != nil {
					t.Fatal(err)
				}
				return out
			}
			// Answers past the header's 300 bytes: a delta is written.
			long := strings.Repeat("y", 400)
			for i, answers := range []map[string]any{{rk: "Ann"}, {rk: "Ann", ok: long}} {
				if r := f.putPartial(t, slug, map[string]any{"session": sess, "page": i, "answers": answers}); r.code != 204 {
					t.Fatalf("PUT %d: %d %s", i, r.code, r.body)
				}
			}
			got := items(place)
			if len(got) != 2 || len(items(elsewhere)) != 0 {
				t.Fatalf("the session's items in %s: %v, want its header and a delta there and none in %s", place, got, elsewhere)
			}
			page, err := f.st.PartialsPage(ctx, sid, store.PartialQuery{})
			if err != nil || len(page.Partials) != 1 || string(page.Partials[0].Answers[opt]) != `"`+long+`"` {
				t.Fatalf("the owner's list: %+v %v", page, err)
			}

			// Another device resumes it: the same session, the same place.
			last := f.putPartial(t, slug, map[string]any{"session": sess, "page": 1, "answers": map[string]any{rk: "Ann", ok: long}})
			r := send(t, f.h, "POST", resumePath(slug), mustJSON(t, map[string]any{"token": last.header.Get("Resume-Token")}), "Content-Type", "application/json")
			var res struct {
				Session string
				Answers map[string]string
			}
			if err := json.Unmarshal([]byte(r.body), &res); err != nil || r.code != 200 || res.Answers[ok] != long {
				t.Fatalf("resume: %d %s", r.code, r.body)
			}
			if r := f.putPartial(t, slug, map[string]any{"session": res.Session, "page": 1, "answers": map[string]any{rk: "Bea", ok: long}}); r.code != 204 {
				t.Fatalf("the resumed session's PUT: %d %s", r.code, r.body)
			}
			if got := items(place); len(got) != 2 || len(items(elsewhere)) != 0 {
				t.Fatalf("after the resumed session's PUT: %v in %s", got, place)
			}

			// The resumed session's response replaces the partial there, in
			// the submission's transaction; the session responds once.
			f.respond(t, slug, res.Session, map[string]any{rk: "Bea"}).submitted(t)
			var claim struct {
				ResponseID int64 `dynamo:"response_id"`
				PartialID  int64 `dynamo:"partial_id"`
			}
			if err := f.db().Table(f.st.TableName()).Get(store.AttrPK, place).Range(store.AttrSK, dynamo.Equal, store.SessionSK(hash)).
				Consistent(true).One(ctx, &claim); err != nil || claim.ResponseID == 0 || claim.PartialID != 0 {
				t.Fatalf("the session's claim in %s: %+v %v", place, claim, err)
			}
			if n := len(items(elsewhere)); n != 0 {
				t.Errorf("%d items of the session in %s", n, elsewhere)
			}
			if again := f.respond(t, slug, sess, map[string]any{rk: "Cy"}); again.code != 409 {
				t.Errorf("the session's second response: %d %s, want 409", again.code, again.body)
			}
			f.putPartial(t, slug, map[string]any{"session": sess, "page": 0}).is(t, 409, `{"detail":"This session has already responded."}`)
			if page, err := f.st.PartialsPage(ctx, sid, store.PartialQuery{}); err != nil || len(page.Partials) != 0 {
				t.Errorf("partials after the response: %+v %v", page, err)
			}
			f.wantStored(t, tc.name, sid, 1)
		})
	}
}
