package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestNewIDsNeverRepeat(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	var (
		mu  sync.Mutex
		ids = map[int64]bool{}
		wg  sync.WaitGroup
	)
	record := func(got []int64) {
		mu.Lock()
		defer mu.Unlock()
		for _, id := range got {
			if ids[id] {
				t.Errorf("id %d handed out twice", id)
			}
			if id <= 0 || id > 1<<31-1 {
				t.Errorf("id %d is not a positive int32", id)
			}
			ids[id] = true
		}
	}
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				id, err := st.NewID(ctx, store.KindFolder)
				if err != nil {
					t.Error(err)
					return
				}
				record([]int64{id})
			}
		}()
	}
	wg.Wait()
	batch, err := st.NewIDs(ctx, store.KindFolder, 50)
	if err != nil {
		t.Fatal(err)
	}
	record(batch)
	for i := 1; i < len(batch); i++ {
		if batch[i]-batch[i-1] != store.IDShards {
			t.Errorf("a batch comes from one shard: %v", batch)
			break
		}
	}
	if len(ids) != 150 {
		t.Errorf("%d distinct ids, want 150", len(ids))
	}
	ctx, calls := awsenv.WithCalls(ctx)
	if _, err := st.NewIDs(ctx, store.KindSurvey, 100); err != nil {
		t.Fatal(err)
	}
	if calls.DynamoDB() != 1 {
		t.Errorf("100 ids took %d calls, want 1", calls.DynamoDB())
	}
}

func TestAccountsAndKeys(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	email := fmt.Sprintf("Owner.%s@Example.com", t.Name())
	a, err := st.CreateAccount(ctx, survey.Account{Email: email, FirstName: "Ada", LastName: "Lovelace", Plan: survey.PlanEnterprise})
	if err != nil {
		t.Fatal(err)
	}
	if a.ID <= 0 || a.UserType != survey.UserTypeOwner {
		t.Errorf("account %+v", a)
	}
	if _, err := st.CreateAccount(ctx, survey.Account{Email: "owner." + t.Name() + "@example.com", Plan: survey.PlanFree}); survey.ErrorCode(err) != survey.ECONFLICT {
		t.Errorf("same email in other case: %v, want ECONFLICT", err)
	}
	if _, err := st.CreateAccount(ctx, survey.Account{Email: "not-an-email", Plan: survey.PlanFree}); survey.ErrorCode(err) != survey.EINVALID {
		t.Errorf("bad email: %v", err)
	}
	got, err := st.Account(ctx, a.ID)
	if err != nil || got != a {
		t.Errorf("Account = %+v, %v; want %+v", got, err, a)
	}
	if byEmail, err := st.AccountByEmail(ctx, email); err != nil || byEmail.ID != a.ID {
		t.Errorf("AccountByEmail = %+v, %v", byEmail, err)
	}
	key, err := st.CreateKey(ctx, a.ID)
	if err != nil || !survey.WellFormedKey(key) {
		t.Fatalf("CreateKey = %q, %v", key, err)
	}
	if owner, err := st.AccountByKeyHash(ctx, survey.HashKey(key)); err != nil || owner.ID != a.ID {
		t.Errorf("AccountByKeyHash = %+v, %v", owner, err)
	}
	if _, err := st.CreateKey(ctx, 1<<40); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("key for a missing account: %v", err)
	}
	if err := st.RevokeKey(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AccountByKeyHash(ctx, survey.HashKey(key)); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("revoked key still resolves: %v", err)
	}
	if err := st.RevokeKey(ctx, survey.NewKey()); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("revoke unknown key: %v", err)
	}
	if _, err := st.Account(ctx, 1<<40); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("missing account: %v", err)
	}
}

type tpl map[string]any

func template(id int64, slug string, score int64, similar ...any) tpl {
	return tpl{
		"id": id, "score": score, "is_general": true, "long_description": "<p>Long</p>", "short_description": "Short",
		"title": "Title " + slug, "title_color": 1, "embedding_link": "https://templates.example.com/s/x/",
		"thumbnail_image": "/media/t.png", "url_slug": slug, "categories": []int{1}, "industries": []any{},
		"usage_guide": "", "language": 4, "type": 1, "similar_templates": similar, "meta_description": nil,
	}
}

func catalogFile(t *testing.T, ts ...tpl) []byte {
	t.Helper()
	b, err := json.Marshal(ts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func catalogByID(t *testing.T, st *store.Store) map[int64]survey.Template {
	t.Helper()
	all, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]survey.Template{}
	for _, x := range all {
		out[x.ID] = x
	}
	return out
}

// TestImportTemplates runs alone on this binary's catalog (no other test
// of this package imports templates).
func TestImportTemplates(t *testing.T) {
	st := testenv.Store(t)
	ctx := context.Background()
	file := catalogFile(t,
		template(9001, "نظرسنجی-یک", 50, 9002, map[string]any{"id": 9003}),
		template(9002, "second", 70, 9001),
		template(9003, "third", 70),
	)
	n, err := st.ImportTemplates(ctx, file)
	if err != nil || n != 3 {
		t.Fatalf("import = %d, %v", n, err)
	}
	ctx2, calls := awsenv.WithCalls(ctx)
	got, err := st.TemplateBySlug(ctx2, "نظرسنجی-یک")
	if err != nil {
		t.Fatal(err)
	}
	if calls.DynamoDB() != 2 {
		t.Errorf("TemplateBySlug made %d calls, want 2", calls.DynamoDB())
	}
	if len(got.SimilarTemplates) != 2 || got.SimilarTemplates[0].ID != 9002 || got.SimilarTemplates[1].ID != 9003 ||
		got.SimilarTemplates[0].SimilarTemplates != nil {
		t.Errorf("similar = %+v", got.SimilarTemplates)
	}
	all, _ := st.Catalog(ctx)
	var order []int64
	for _, x := range all {
		order = append(order, x.ID)
	}
	if fmt.Sprint(order) != "[9002 9003 9001]" {
		t.Errorf("catalog order %v, want score descending then id", order)
	}

	// Re-import: same ids replace, nothing duplicates; a renamed slug moves.
	changed := template(9003, "third-renamed", 70)
	changed["title"] = "Changed"
	if n, err := st.ImportTemplates(ctx, catalogFile(t, changed)); err != nil || n != 1 {
		t.Fatalf("re-import = %d, %v", n, err)
	}
	byID := catalogByID(t, st)
	if len(byID) != 3 || byID[9003].Title != "Changed" {
		t.Errorf("after re-import: %d templates, title %q", len(byID), byID[9003].Title)
	}
	if _, err := st.TemplateBySlug(ctx, "third"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("the old slug still answers: %v", err)
	}
	if _, err := st.TemplateBySlug(ctx, "third-renamed"); err != nil {
		t.Errorf("the new slug: %v", err)
	}

	// Bad files write nothing.
	bad := map[string][]byte{
		"dangling similar":    catalogFile(t, template(9010, "new-one", 1, 424242)),
		"slug of another":     catalogFile(t, template(9011, "second", 1)),
		"missing title":       catalogFile(t, template(9012, "ok-slug", 1), func() tpl { x := template(9013, "x", 1); delete(x, "title"); return x }()),
		"not JSON":            []byte("{"),
		"duplicate in a file": catalogFile(t, template(9014, "a", 1), template(9014, "b", 1)),
	}
	for name, data := range bad {
		if _, err := st.ImportTemplates(ctx, data); survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("%s: %v, want EINVALID", name, err)
		}
	}
	if got := catalogByID(t, st); len(got) != 3 {
		t.Errorf("bad files wrote templates: %d in the catalog", len(got))
	}
	// A slug may move between templates inside one file.
	a, b := template(9001, "second", 50), template(9002, "نظرسنجی-یک", 70)
	if _, err := st.ImportTemplates(ctx, catalogFile(t, a, b)); err != nil {
		t.Errorf("swapping slugs in one file: %v", err)
	}
}

// TestDeleteFolderResumesAfterAFailureHalfWay: a deletion that died after
// trashing some surveys hides the folder at once, and a retry finishes it.
func TestDeleteFolderResumesAfterAFailureHalfWay(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	ctx := context.Background()
	a, _ := testenv.NewAccount(t, survey.PlanFree)
	f, err := st.CreateFolder(ctx, a.ID, "doomed", nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.CreateFolder(ctx, a.ID, "other", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range 5 {
		sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: fmt.Sprint("s", i), Language: 1, Theme: survey.DefaultTheme()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sv.ID)
	}
	keep, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: other.ID, Name: "keep", Language: 1, Theme: survey.DefaultTheme()})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.HalfDeleteFolder(ctx, a.ID, f.ID, 2); err != nil {
		t.Fatal(err)
	}
	// Half way: the folder is hidden and takes no new or moved surveys.
	if _, err := st.Folder(ctx, a.ID, f.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("a deleting folder still answers: %v", err)
	}
	tree, err := st.Folders(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Folders) != 1 || tree.Folders[0].ID != other.ID || len(tree.Surveys[f.ID]) != 0 {
		t.Errorf("the list shows a deleting folder or its surveys: %+v", tree)
	}
	if _, err := st.CreateSurvey(ctx, survey.Survey{AccountID: a.ID, FolderID: f.ID, Name: "late", Language: 1}); survey.ErrorCode(err) != survey.EINVALID {
		t.Errorf("a survey was created in a deleting folder: %v", err)
	}
	if err := st.UpdateSurvey(ctx, a.ID, keep.ID, store.SurveyUpdate{FolderID: &f.ID}); survey.ErrorCode(err) != survey.EINVALID {
		t.Errorf("a survey was moved into a deleting folder: %v", err)
	}
	// The retry finishes: every survey trashed, nothing erased, folder gone.
	if err := st.DeleteFolder(ctx, a.ID, f.ID); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		c, err := st.SurveyCollection(ctx, a.ID, id)
		if err != nil || !c.Survey.Deleted {
			t.Errorf("survey %d after the retry: deleted=%v, %v", id, c.Survey.Deleted, err)
		}
	}
	if c, err := st.SurveyCollection(ctx, a.ID, keep.ID); err != nil || c.Survey.Deleted {
		t.Errorf("a survey of another folder was trashed: %v", err)
	}
	if err := st.DeleteFolder(ctx, a.ID, f.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("deleting a deleted folder: %v", err)
	}
}
