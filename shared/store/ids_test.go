package store_test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

// ownStore is a Store of its own on the test's table: its own id lease,
// and an allocator a test may replace without touching other tests.
func ownStore(t *testing.T, client aws.HTTPClient) *store.Store {
	t.Helper()
	cfg := testenv.Config(t)
	if client != nil {
		cfg.HTTPClient = client
	}
	return store.New(cfg, testenv.Store(t).TableName())
}

// world is an account with a folder and a survey, for the create tests.
type world struct {
	acct   survey.Account
	folder survey.Folder
	survey survey.Survey
}

func newWorld(t *testing.T, st *store.Store) world {
	t.Helper()
	ctx := t.Context()
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	f, err := st.CreateFolder(ctx, a.ID, "home", nil)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "s", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	return world{acct: a, folder: f, survey: sv}
}

func textElement(title string) survey.Element {
	e := survey.NewElement(survey.TypeText)
	e.Title = title
	return e
}

// TestCreateWithTakenID: a create whose new id is already taken (a counter
// behind its items, forced here) succeeds with a fresh id, leaves the
// item that held the id alone, and pushes the counter past it.
func TestCreateWithTakenID(t *testing.T) {
	t.Parallel()
	base := testenv.Store(t)
	w := newWorld(t, base)
	other := newWorld(t, base) // another account: a survey id is global
	ctx := t.Context()

	t.Run("folder", func(t *testing.T) {
		st := ownStore(t, nil)
		st.ForceIDs(store.KindFolder, w.folder.ID)
		ctx, calls := awsenv.WithCalls(ctx)
		f, err := st.CreateFolder(ctx, w.acct.ID, "new", nil)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if f.ID == w.folder.ID {
			t.Fatalf("the taken id %d was handed out", f.ID)
		}
		t.Logf("a folder create that met a taken id: %d DynamoDB calls %v", calls.DynamoDB(), calls.Ops())
		tree, err := base.Folders(ctx, w.acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, fo := range tree.Folders {
			names = append(names, fmt.Sprintf("%d:%s", fo.ID, fo.Name))
		}
		want := []string{fmt.Sprintf("%d:home", w.folder.ID), fmt.Sprintf("%d:new", f.ID)}
		slices.Sort(names)
		slices.Sort(want)
		if !slices.Equal(names, want) {
			t.Errorf("folders %v, want %v", names, want)
		}
		if st.IDCollisions() != 1 {
			t.Errorf("%d collisions counted, want 1", st.IDCollisions())
		}
		// The shard that handed the id out is past it now.
		for range 20 {
			id, err := base.NewIDs(ctx, store.KindFolder, 1)
			if err != nil {
				t.Fatal(err)
			}
			if id[0]%store.IDShards == w.folder.ID%store.IDShards && id[0] <= w.folder.ID {
				t.Fatalf("shard %d handed out %d, not past %d", w.folder.ID%store.IDShards, id[0], w.folder.ID)
			}
		}
	})

	t.Run("survey of another account", func(t *testing.T) {
		st := ownStore(t, nil)
		st.ForceIDs(store.KindSurvey, other.survey.ID)
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: w.acct.ID, FolderID: w.folder.ID, Name: "new", Language: 1, Theme: survey.DefaultTheme()})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if sv.ID == other.survey.ID {
			t.Fatalf("the taken id %d was handed out", sv.ID)
		}
		theirs, err := base.Survey(ctx, other.acct.ID, other.survey.ID)
		if err != nil || theirs.Name != "s" || theirs.URLSlug != other.survey.URLSlug {
			t.Errorf("the other account's survey: %+v, %v", theirs, err)
		}
		mine, err := base.Survey(ctx, w.acct.ID, sv.ID)
		if err != nil || mine.Name != "new" {
			t.Errorf("the new survey: %+v, %v", mine, err)
		}
	})

	t.Run("element", func(t *testing.T) {
		first, err := base.CreateElement(ctx, w.acct.ID, w.survey.ID, textElement("first"), survey.Placement{})
		if err != nil {
			t.Fatal(err)
		}
		st := ownStore(t, nil)
		st.ForceIDs(store.KindElement, first.Element.ID)
		ch, err := st.CreateElement(ctx, w.acct.ID, w.survey.ID, textElement("second"), survey.Placement{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if ch.Element.ID == first.Element.ID {
			t.Fatalf("the taken id %d was handed out", ch.Element.ID)
		}
		c, err := base.SurveyCollection(ctx, w.acct.ID, w.survey.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.Elements[first.Element.ID].Title != "first" || c.Elements[ch.Element.ID].Title != "second" {
			t.Errorf("elements %+v", c.Elements)
		}
		if got := c.Layout.QuestionCount(); got != 2 {
			t.Errorf("layout counts %d questions, want 2", got)
		}
	})

	t.Run("account", func(t *testing.T) {
		st := ownStore(t, nil)
		st.ForceIDs(store.KindAccount, w.acct.ID)
		a, err := st.CreateAccount(ctx, survey.Account{Email: fmt.Sprintf("taken-id-%d@example.com", w.acct.ID), Plan: survey.PlanFree})
		if err != nil {
			t.Fatalf("create: %v", err) // it used to say the email was in use
		}
		if a.ID == w.acct.ID {
			t.Fatalf("the taken id %d was handed out", a.ID)
		}
		if got, err := base.Account(ctx, w.acct.ID); err != nil || got.Email != w.acct.Email {
			t.Errorf("the account that held the id: %+v, %v", got, err)
		}
		if got, err := base.AccountByEmail(ctx, a.Email); err != nil || got.ID != a.ID {
			t.Errorf("the new account: %+v, %v", got, err)
		}
	})

	t.Run("variables", func(t *testing.T) {
		_, vars, version, err := base.SurveyVariables(ctx, w.acct.ID, w.survey.ID)
		if err != nil {
			t.Fatal(err)
		}
		made, err := base.CreateVariables(ctx, w.acct.ID, w.survey.ID, vars, version, []survey.Variable{{Name: "city", Type: 1}})
		if err != nil {
			t.Fatal(err)
		}
		_, vars, version, err = base.SurveyVariables(ctx, w.acct.ID, w.survey.ID)
		if err != nil {
			t.Fatal(err)
		}
		st := ownStore(t, nil)
		st.ForceIDs(store.KindVariable, made[0].ID)
		add, err := st.CreateVariables(ctx, w.acct.ID, w.survey.ID, vars, version, []survey.Variable{{Name: "age", Type: 2}})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		if add[0].ID == made[0].ID {
			t.Fatalf("the taken id %d was handed out", add[0].ID)
		}
		_, vars, _, err = base.SurveyVariables(ctx, w.acct.ID, w.survey.ID)
		if err != nil || len(vars) != 2 || vars[0].ID == vars[1].ID {
			t.Errorf("variables %+v, %v", vars, err)
		}
	})

	t.Run("every id taken", func(t *testing.T) {
		st := ownStore(t, nil)
		taken := w.folder.ID
		st.ForceIDs(store.KindFolder, taken, taken, taken, taken, taken)
		_, err := st.CreateFolder(ctx, w.acct.ID, "never", nil)
		if survey.ErrorCode(err) != survey.EUNAVAILABLE {
			t.Fatalf("err %v, want EUNAVAILABLE (503: retry)", err)
		}
		tree, err := base.Folders(ctx, w.acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, fo := range tree.Folders {
			if fo.Name == "never" {
				t.Errorf("a refused create wrote folder %d", fo.ID)
			}
		}
	})
}

// lossyClient delivers requests to the emulator but, once armed, loses
// the answer of the next call of one operation, as a timeout or a reset
// connection would: the write lands, and the SDK retries it.
type lossyClient struct {
	inner aws.HTTPClient
	op    atomic.Value // the X-Amz-Target to lose, e.g. "DynamoDB_20120810.PutItem"
	lost  atomic.Int32
}

func (c *lossyClient) arm(op string) { c.op.Store("DynamoDB_20120810." + op) }

func (c *lossyClient) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.inner.Do(req)
	op, _ := c.op.Load().(string)
	if err != nil || op == "" || req.Header.Get("X-Amz-Target") != op || !c.op.CompareAndSwap(op, "") {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c.lost.Add(1)
	return nil, errLostAnswer{}
}

// errLostAnswer is a timeout after the request was sent.
type errLostAnswer struct{}

func (errLostAnswer) Error() string   { return "test: the answer was lost (timeout)" }
func (errLostAnswer) Timeout() bool   { return true }
func (errLostAnswer) Temporary() bool { return true }

// TestCreateAfterLostAnswer: a create whose write landed but whose answer
// was lost is retried by the SDK; the retry meets the create's own item
// and must succeed, creating exactly one. (A lost PutItem answer was the
// "put folder: ConditionalCheckFailedException" 500 seen once; DynamoDB
// makes a retried transaction idempotent by its ClientRequestToken, the
// emulator does not, so the transactions are held to it here too.)
func TestCreateAfterLostAnswer(t *testing.T) {
	t.Parallel()
	base := testenv.Store(t)
	w := newWorld(t, base)
	lossy := &lossyClient{inner: testenv.Config(t).HTTPClient}
	st := ownStore(t, lossy)
	ctx := t.Context()
	check := func(t *testing.T, what string) {
		t.Helper()
		if lossy.lost.Load() != 1 {
			t.Fatalf("%s: %d answers lost, want 1 (the test did not exercise the retry)", what, lossy.lost.Load())
		}
		lossy.lost.Store(0)
	}

	t.Run("folder", func(t *testing.T) {
		lossy.arm("TransactWriteItems") // the folder and its count
		f, err := st.CreateFolder(ctx, w.acct.ID, "lost", nil)
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		check(t, "folder")
		tree, err := base.Folders(ctx, w.acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, fo := range tree.Folders {
			if fo.Name == "lost" {
				n++
				if fo.ID != f.ID {
					t.Errorf("folder %d, answered %d", fo.ID, f.ID)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d folders made, want 1", n)
		}
		if st.IDCollisions() != 0 {
			t.Errorf("its own write was taken for a collision")
		}
		wantCounts(t, base, w.acct.ID, "folder counted once", 1, 2)
	})

	t.Run("survey", func(t *testing.T) {
		lossy.arm("TransactWriteItems")
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: w.acct.ID, FolderID: w.folder.ID, Name: "lost", Language: 1, Theme: survey.DefaultTheme()})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		check(t, "survey")
		_, svs, err := base.FolderWithSurveys(ctx, w.acct.ID, w.folder.ID)
		if err != nil {
			t.Fatal(err)
		}
		var lost []int64
		for _, s := range svs {
			if s.Name == "lost" {
				lost = append(lost, s.ID)
			}
		}
		if !slices.Equal(lost, []int64{sv.ID}) {
			t.Errorf("surveys named lost: %v, want [%d]", lost, sv.ID)
		}
		if got, err := base.SurveyIDBySlug(ctx, sv.URLSlug); err != nil || got != sv.ID {
			t.Errorf("slug %s: %d, %v", sv.URLSlug, got, err)
		}
		wantCounts(t, base, w.acct.ID, "survey counted once", 2, 2)
	})

	t.Run("element", func(t *testing.T) {
		lossy.arm("TransactWriteItems")
		ch, err := st.CreateElement(ctx, w.acct.ID, w.survey.ID, textElement("lost"), survey.Placement{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		check(t, "element")
		c, err := base.SurveyCollection(ctx, w.acct.ID, w.survey.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Elements) != 1 || c.Elements[ch.Element.ID].Title != "lost" || c.Layout.Version != ch.Layout.Version {
			t.Errorf("elements %+v, layout version %d (answered %d)", c.Elements, c.Layout.Version, ch.Layout.Version)
		}
	})

	t.Run("account and key", func(t *testing.T) {
		lossy.arm("TransactWriteItems")
		a, err := st.CreateAccount(ctx, survey.Account{Email: fmt.Sprintf("lost-%d@example.com", w.acct.ID), Plan: survey.PlanFree})
		if err != nil {
			t.Fatalf("create account: %v", err) // it used to say the email was in use
		}
		check(t, "account")
		if got, err := base.AccountByEmail(ctx, a.Email); err != nil || got.ID != a.ID {
			t.Errorf("account by email: %+v, %v", got, err)
		}
		lossy.arm("TransactWriteItems")
		key, err := st.CreateKey(ctx, a.ID)
		if err != nil {
			t.Fatalf("create key: %v", err) // it used to say the account was missing
		}
		check(t, "key")
		if got, err := base.AccountByKeyHash(ctx, survey.HashKey(key)); err != nil || got.ID != a.ID {
			t.Errorf("account by key: %+v, %v", got, err)
		}
	})

	t.Run("variables", func(t *testing.T) {
		_, vars, version, err := base.SurveyVariables(ctx, w.acct.ID, w.survey.ID)
		if err != nil {
			t.Fatal(err)
		}
		lossy.arm("TransactWriteItems")
		add, err := st.CreateVariables(ctx, w.acct.ID, w.survey.ID, vars, version, []survey.Variable{{Name: "lost", Type: 1}})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		check(t, "variables")
		_, vars, _, err = base.SurveyVariables(ctx, w.acct.ID, w.survey.ID)
		if err != nil || len(vars) != 1 || vars[0].ID != add[0].ID {
			t.Errorf("variables %+v, %v", vars, err)
		}
	})

	t.Run("sweep close", func(t *testing.T) {
		svs, err := base.ImportSurveys(ctx, []survey.Survey{{AccountID: w.acct.ID, FolderID: w.folder.ID, Name: "due",
			Language: 1, Theme: survey.DefaultTheme(), ExpirationDate: "2026-01-01"}})
		if err != nil {
			t.Fatal(err)
		}
		due := store.DueSurvey{ID: svs[0].ID, ExpirationDate: "2026-01-01"}
		lossy.arm("UpdateItem")
		closed, err := st.CloseExpired(ctx, due)
		if err != nil || !closed {
			t.Fatalf("close: %v, %v (a lost answer must not make the sweep's own close look like another's)", closed, err)
		}
		check(t, "sweep close")
		if again, err := base.CloseExpired(ctx, due); err != nil || again {
			t.Errorf("another close of the same entry: %v, %v", again, err)
		}
	})
}
