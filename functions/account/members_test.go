package account_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"surveyservice/internal/conflict"
	"surveyservice/internal/testenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// TestMemberKeysRacing: on the conflict model, the owner's scripts issuing
// one member a new key at once are writes that do not exclude each other
// (one after the other, each succeeds and revokes the one before): every
// request answers 201, never 503, and exactly one of the keys answered
// works, the last one (contract sections 3 and 19).
func TestMemberKeysRacing(t *testing.T) {
	t.Parallel()
	cfg, p := testenv.ConflictConfig(t, conflict.DefaultHold)
	acct, key := testenv.NewAccount(t, survey.PlanEnterprise)
	st := store.New(cfg, testenv.Store(t).TableName())
	h := subdomainHandler(st)
	m, _, err := st.CreateMember(t.Context(), acct.ID, survey.Member{Email: "racing@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("/api/members/%d/key/", m.SubUser)
	before := p.Conflicts()
	for round := range 3 {
		replies := make([]testenv.Reply, 4)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range replies {
			wg.Go(func() {
				<-start
				replies[i] = testenv.Serve(h, testenv.NewRequest("POST", path, key, "", nil))
			})
		}
		close(start)
		wg.Wait()
		working := 0
		for i, r := range replies {
			var got struct {
				APIKey string `json:"api_key"`
			}
			if r.Code != 201 || json.Unmarshal(r.Body, &got) != nil {
				t.Errorf("round %d: request %d: %d %s, want 201 with a key", round, i, r.Code, r.Body)
				continue
			}
			if w := testenv.Serve(h, testenv.NewRequest("GET", "/api/whoami/", got.APIKey, "", nil)); w.Code == 200 {
				working++
			}
		}
		if working != 1 {
			t.Errorf("round %d: %d of the keys answered work, want 1", round, working)
		}
	}
	t.Logf("%d transaction conflicts", p.Conflicts()-before)
}
