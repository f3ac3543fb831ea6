package folders_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/folders"
	"surveyservice/internal/conflict"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// parallel runs fn(0..n-1), 8 at a time.
func parallel(n int, fn func(i int)) {
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

// TestConcurrentPatches: a PATCH of the name and a PATCH of the order racing
// on one folder both land.
func TestConcurrentPatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	fj := f.create(t, `{"name": "start", "order": 1}`)
	f.warm(t)
	p := folderPath(fj.ID)
	for round := range 10 {
		name, order := fmt.Sprintf("name %d", round), int64(100+round)
		var byName, byOrder result
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			byName = f.do("PATCH", p, fmt.Sprintf(`{"name": %q}`, name))
		}()
		go func() {
			defer wg.Done()
			<-start
			byOrder = f.do("PATCH", p, fmt.Sprintf(`{"order": %d}`, order))
		}()
		close(start)
		wg.Wait()
		if byName.code != 200 || byOrder.code != 200 {
			t.Fatalf("round %d: %v / %v", round, byName, byOrder)
		}
		if got := f.get(t, fj.ID); got.Name != name || got.Order != order {
			t.Errorf("round %d: folder is %q order %d, want %q order %d", round, got.Name, got.Order, name, order)
		}
	}
}

// TestConcurrentCreates: creates without order racing all succeed; the list
// stays sorted by (order, id) and every order is at least 1.
func TestConcurrentCreates(t *testing.T) {
	t.Parallel()
	const n = 10
	f := newFixture(t)
	f.warm(t)
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = f.do("POST", "/api/folders/", fmt.Sprintf(`{"name": "c%d"}`, i))
		}()
	}
	close(start)
	wg.Wait()
	created := map[int64]bool{}
	for i, res := range results {
		if res.code != 201 {
			t.Errorf("create %d: %v", i, res)
			continue
		}
		var fj folderJSON
		_ = json.Unmarshal([]byte(res.body), &fj)
		if fj.Order < 1 {
			t.Errorf("create %d: order %d", i, fj.Order)
		}
		created[fj.ID] = true
	}
	ls := f.list(t)
	if len(ls) != n || len(created) != n {
		t.Fatalf("list has %d folders (%d distinct created), want %d", len(ls), len(created), n)
	}
	if !sortedByOrderID(ls) {
		t.Errorf("list not sorted by (order, id): %+v", ls)
	}
	orders := map[int64]int{}
	for _, fj := range ls {
		if !created[fj.ID] || fj.Order < 1 {
			t.Errorf("listed folder %+v", fj)
		}
		orders[fj.Order]++
	}
	t.Logf("10 concurrent creates: %d distinct orders", len(orders))
}

// TestWritesRaceSurveyCreates: a folder's PATCH, PUT or DELETE racing
// creates of surveys in it (which hold the folder item in their
// transactions) is a write that can succeed, so it answers 200 or 204,
// never 503 (contract section 3, contention); each create answers its
// survey or folder_id's 400, and after a DELETE every survey created is in
// the trash.
func TestWritesRaceSurveyCreates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cfg, p := testenv.ConflictConfig(t, conflict.DefaultHold)
	f.st = store.New(cfg, f.st.TableName())
	auth := api.NewAuthenticator(f.st)
	f.h = testenv.Conform(folders.New(folders.Deps{Auth: auth, Store: f.st, Now: clock}))
	f.warm(t)
	before := p.Conflicts()
	defer func() { t.Logf("%d transaction conflicts", p.Conflicts()-before) }()
	for round, w := range []struct {
		method, body string
		code         int
	}{
		{"PATCH", `{"name": "renamed"}`, 200}, {"PUT", `{"name": "put", "order": 3}`, 200}, {"PATCH", `{"order": 7}`, 200},
		{"DELETE", "", 204}, {"DELETE", "", 204}, {"DELETE", "", 204},
	} {
		fj := f.create(t, fmt.Sprintf(`{"name": "raced %d"}`, round))
		const creates = 12
		var wrote result
		var wg sync.WaitGroup
		start := make(chan struct{})
		created := make([]survey.Survey, creates)
		errs := make([]error, creates)
		for i := range creates {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				created[i], errs[i] = f.createSurvey(context.Background(), fj.ID, fmt.Sprintf("s%d", i))
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			time.Sleep(time.Duration(round%3*10) * time.Millisecond) // the write lands at a few points of the creates
			wrote = f.do(w.method, folderPath(fj.ID), w.body)
		}()
		close(start)
		wg.Wait()
		if wrote.code != w.code {
			t.Fatalf("round %d: %s racing %d survey creates: %v, want %d", round, w.method, creates, wrote, w.code)
		}
		for i, err := range errs {
			if err != nil {
				if survey.ErrorCode(err) != survey.EINVALID || w.method != "DELETE" {
					t.Errorf("round %d: create %d: %v", round, i, err)
				}
				continue
			}
			if w.method != "DELETE" {
				continue
			}
			c, err := f.st.SurveyCollection(context.Background(), f.acct.ID, created[i].ID)
			if err != nil || !c.Survey.Deleted {
				t.Errorf("round %d: survey %d created in the deleted folder: deleted %v, %v", round, created[i].ID, c.Survey.Deleted, err)
			}
		}
	}
}
