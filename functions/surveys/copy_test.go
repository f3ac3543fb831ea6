package surveys_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"surveyservice/functions/surveys"
	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
	"surveyservice/shared/api"
	"surveyservice/shared/store"
	"surveyservice/shared/survey"
)

func copyPath(id any) string { return fmt.Sprintf("/api/v2/surveys/%v/copy/", id) }

// bigSurvey is a survey of n elements built straight into the store: a
// welcome page, questions (every tenth a group holding the next three; a
// choice question, a matrix and a text question in turn, each from the
// fourth on with display conditions naming an earlier choice question's
// choice and an earlier matrix's row and column), an appreciation page;
// pro settings, a theme color and two variables.
type bigSurvey struct {
	id       int64
	elements map[int64]map[string]any // by id, as stored
}

func makeBigSurvey(t testing.TB, st *store.Store, aid, fid int64, n int) bigSurvey {
	t.Helper()
	ctx := context.Background()
	theme := survey.DefaultTheme()
	theme.AccentColor = "#123456"
	sv, err := st.CreateSurvey(ctx, survey.Survey{AccountID: aid, FolderID: fid, Name: "Big survey", Language: 4, Theme: theme})
	if err != nil {
		t.Fatal(err)
	}
	eids, err := st.NewIDs(ctx, store.KindElement, n)
	if err != nil {
		t.Fatal(err)
	}
	cids, err := st.NewIDs(ctx, store.KindChoice, 4*n)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[int64]string{}
	out := bigSurvey{id: sv.ID, elements: map[int64]map[string]any{}}
	l := survey.Layout{Members: map[int64]int64{}}
	var lastChoice, lastMatrix map[string]any
	var group int64
	members := 0
	for i, id := range eids {
		var typ survey.ElementType
		switch {
		case i == 0:
			typ = survey.TypeWelcome
		case i == n-1:
			typ = survey.TypeAppreciation
		case i%10 == 1:
			typ = survey.TypeGroup
		default:
			typ = []survey.ElementType{survey.TypeMultipleChoice, survey.TypeMatrix, survey.TypeText}[i%3]
		}
		e := survey.NewElement(typ)
		e.ID, e.Title = id, fmt.Sprintf("Element %d", i)
		c := cids[4*i:]
		switch typ {
		case survey.TypeMultipleChoice:
			e.Choices = []survey.ChoiceItem{{ID: c[0], Name: "yes", Order: 1}, {ID: c[1], Name: "no", Order: 2}}
			e.CorrectChoice = &c[1]
		case survey.TypeMatrix:
			e.Rows = []survey.NamedItem{{ID: c[0], Name: "r1"}, {ID: c[1], Name: "r2"}}
			e.Columns = []survey.NamedItem{{ID: c[2], Name: "c1"}, {ID: c[3], Name: "c2"}}
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if typ != survey.TypeWelcome && typ != survey.TypeAppreciation && lastChoice != nil && lastMatrix != nil {
			choice := lastChoice["choices"].([]any)[0].(map[string]any)["id"]
			row := lastMatrix["rows"].([]any)[1].(map[string]any)["id"]
			col := lastMatrix["columns"].([]any)[0].(map[string]any)["id"].(float64)
			doc["conditions"] = []any{
				map[string]any{"first_operand": lastChoice["id"], "arithmetic_operator": 10,
					"second_operand": map[string]any{"id": choice, "type": 1, "value": nil}, "logical_operator": 1},
				map[string]any{"first_operand": lastMatrix["id"], "arithmetic_operator": 1,
					"second_operand": map[string]any{"id": row, "type": 1, "value": strconv.FormatInt(int64(col), 10)}, "logical_operator": 2},
			}
		}
		b, _ = json.Marshal(doc)
		docs[id] = string(b)
		var stored map[string]any
		_ = json.Unmarshal(b, &stored)
		out.elements[id] = stored
		switch typ {
		case survey.TypeWelcome:
			l.Welcome = append(l.Welcome, id)
		case survey.TypeAppreciation:
			l.Appreciations = append(l.Appreciations, id)
		default:
			l.Questions = append(l.Questions, id)
			switch {
			case typ == survey.TypeGroup:
				l.Groups = append(l.Groups, id)
				group, members = id, 0
			case group != 0 && members < 3:
				l.Members[id] = group
				members++
			}
		}
		switch typ {
		case survey.TypeMultipleChoice:
			lastChoice = stored
		case survey.TypeMatrix:
			lastMatrix = stored
		}
	}
	if err := st.ImportElements(ctx, aid, sv.ID, l, docs); err != nil {
		t.Fatal(err)
	}
	desc := "Where are you?"
	err = st.UpdateSettings(ctx, aid, sv.ID, store.SettingsUpdate{Set: map[string]any{
		"no_spam": true, "hide_progressbar": true, "location_is_active": true, "location_description": &desc}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.CreateVariables(ctx, aid, sv.ID, nil, 0, []survey.Variable{
		{Name: "city", VariableSource: 0, Type: 1}, {Name: "age", VariableSource: 0, Type: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// flatten lists a detail's elements in display order: welcome pages,
// questions page by page, appreciation pages.
func flatten(t *testing.T, d map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range d["welcome"].([]any) {
		out = append(out, e.(map[string]any))
	}
	for _, page := range d["questions"].([]any) {
		for _, e := range page.([]any) {
			out = append(out, e.(map[string]any))
		}
	}
	for _, e := range d["appreciations"].([]any) {
		out = append(out, e.(map[string]any))
	}
	return out
}

// checkCopy compares a copy's detail with its source's: the same elements
// in the same places with the same fields, every id new, every reference
// (group, correct choice, conditions) the copy's own.
func checkCopy(t *testing.T, src, cp map[string]any, srcDocs, cpDocs map[int64]map[string]any) {
	t.Helper()
	a, b := flatten(t, src), flatten(t, cp)
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("copy has %d elements, source %d", len(b), len(a))
	}
	eid := map[float64]float64{}
	item := map[float64]float64{}
	for i := range a {
		eid[a[i]["id"].(float64)] = b[i]["id"].(float64)
		for _, k := range []string{"choices", "rows", "columns"} {
			x, _ := a[i][k].([]any)
			y, _ := b[i][k].([]any)
			if len(x) != len(y) {
				t.Fatalf("element %d: %s %d in the copy, %d in the source", i, k, len(y), len(x))
			}
			for j := range x {
				item[x[j].(map[string]any)["id"].(float64)] = y[j].(map[string]any)["id"].(float64)
			}
		}
	}
	for from, to := range eid {
		if from == to {
			t.Fatalf("element id %v kept", from)
		}
	}
	for from, to := range item {
		if from == to {
			t.Fatalf("choice, row or column id %v kept", from)
		}
	}
	for i := range a {
		x, y := a[i], b[i]
		for k, v := range x {
			switch k {
			case "id":
				continue
			case "related_group":
				if v != nil && y[k] != eid[v.(float64)] {
					t.Fatalf("element %d: %s %v, want %v", i, k, y[k], eid[v.(float64)])
				}
				continue
			case "correct_choice":
				if v != nil && y[k].(map[string]any)["id"] != item[v.(map[string]any)["id"].(float64)] {
					t.Fatalf("element %d: %s %v, want the copy of %v", i, k, y[k], v)
				}
				continue
			case "choices", "rows", "columns":
				continue
			}
			if fmt.Sprint(v) != fmt.Sprint(y[k]) && k != "conditions" && k != "second_operand" {
				t.Fatalf("element %d: %s = %v in the copy, %v in the source", i, k, y[k], v)
			}
		}
	}
	// Conditions, as stored: every operand the copy's own.
	checked := 0
	for i := range a {
		doc := srcDocs[int64(a[i]["id"].(float64))]
		rules, _ := doc["conditions"].([]any)
		got, _ := cpDocs[int64(b[i]["id"].(float64))]["conditions"].([]any)
		if len(rules) == 0 {
			continue
		}
		if len(got) != len(rules) {
			t.Fatalf("element %d: %d conditions in the copy, %d in the source", i, len(got), len(rules))
		}
		for j := range rules {
			r, g := rules[j].(map[string]any), got[j].(map[string]any)
			if g["first_operand"] != eid[r["first_operand"].(float64)] {
				t.Fatalf("element %d rule %d: first_operand %v, want %v", i, j, g["first_operand"], eid[r["first_operand"].(float64)])
			}
			ro, go_ := r["second_operand"].(map[string]any), g["second_operand"].(map[string]any)
			if go_["id"] != item[ro["id"].(float64)] {
				t.Fatalf("element %d rule %d: second_operand.id %v, want %v", i, j, go_["id"], item[ro["id"].(float64)])
			}
			if v, ok := ro["value"].(string); ok {
				col, _ := strconv.ParseFloat(v, 64)
				if go_["value"] != strconv.FormatInt(int64(item[col]), 10) {
					t.Fatalf("element %d rule %d: matrix column %v, want %v", i, j, go_["value"], item[col])
				}
			}
			checked++
		}
	}
	if len(srcDocs) > 10 && checked == 0 {
		t.Fatal("no conditions were compared")
	}
	if cp["theme"] == nil || fmt.Sprint(cp["theme"]) != fmt.Sprint(src["theme"]) {
		t.Fatalf("theme %v, want %v", cp["theme"], src["theme"])
	}
	if cp["is_template"] != false || cp["submitted_responses"] != 0.0 {
		t.Fatalf("is_template %v, submitted_responses %v", cp["is_template"], cp["submitted_responses"])
	}
	for _, k := range []string{"url_slug", "report_code", "preview_code"} {
		if cp[k] == src[k] {
			t.Fatalf("%s kept: %v", k, cp[k])
		}
	}
	sv, cv := src["variables"].([]any), cp["variables"].([]any)
	if len(sv) != len(cv) {
		t.Fatalf("variables %v, want like %v", cv, sv)
	}
	for i := range sv {
		x, y := sv[i].(map[string]any), cv[i].(map[string]any)
		if x["name"] != y["name"] || x["type"] != y["type"] || x["id"] == y["id"] {
			t.Fatalf("variable %d: %v, source %v", i, y, x)
		}
	}
}

// TestCopySurvey: a copy of a survey holds every element, group, choice,
// row, column and condition with new ids, the settings, theme and
// variables; it is a survey of its own (changing it leaves the source as
// it was) and lists beside the source. Its default name adds " (copy)".
func TestCopySurvey(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Home")
	other := folder(t, f.st, f.acct.ID, "Other")
	src := makeBigSurvey(t, f.st, f.acct.ID, fid, 40)
	before := f.get(t, src.id)

	r := f.do(t, "POST", copyPath(src.id), "")
	if r.code != 201 {
		t.Fatalf("copy: %d %s", r.code, r.body)
	}
	cp := decode(t, r.body)
	if cp["name"] != "Big survey (copy)" || cp["dropped_settings"] == nil || len(cp["dropped_settings"].([]any)) != 1 {
		// The pro account keeps no_spam; location_* need enterprise.
		t.Logf("dropped %v", cp["dropped_settings"])
	}
	if got := fmt.Sprint(cp["dropped_settings"]); got != "[location_description location_is_active]" {
		t.Fatalf("dropped_settings %s, want [location_description location_is_active]", got)
	}
	cid := idOf(t, cp)
	cpDocs := storedDocs(t, f.st, cid)
	checkCopy(t, before, cp, src.elements, cpDocs)
	// The copy's rules are guarded as an element write's are (contract
	// section 15): the element a rule names cannot be deleted.
	guarded := false
	for id, doc := range cpDocs {
		rules, _ := doc["conditions"].([]any)
		if len(rules) == 0 {
			continue
		}
		named := int64(rules[0].(map[string]any)["first_operand"].(float64))
		err := f.st.DeleteElement(t.Context(), f.acct.ID, cid, named)
		if survey.ErrorCode(err) != survey.ECONFLICT {
			t.Fatalf("delete of element %d, which element %d's rule names: %v, want a conflict", named, id, err)
		}
		guarded = true
		break
	}
	if !guarded {
		t.Fatal("the copy has no rule to guard")
	}
	stored := f.get(t, cid)
	delete(cp, "dropped_settings")
	sameDetail(t, "the copy's detail, read back", stored, cp)
	checkListed(t, f.st, f.acct.ID, cid, fid)
	_, settings, err := f.st.SurveySettings(t.Context(), f.acct.ID, cid)
	if err != nil {
		t.Fatal(err)
	}
	if !settings.NoSpam || !settings.HideProgressbar || settings.LocationIsActive || settings.LocationDescription != nil {
		t.Fatalf("copied settings %+v", settings)
	}

	// Into another folder, with a name of its own.
	r = f.do(t, "POST", copyPath(src.id), fmt.Sprintf(`{"folder_id":%d,"name":"  Mine  "}`, other))
	if r.code != 201 {
		t.Fatalf("copy into a folder: %d %s", r.code, r.body)
	}
	if d := decode(t, r.body); d["name"] != "Mine" {
		t.Fatalf("name %v", d["name"])
	}
	checkListed(t, f.st, f.acct.ID, idOf(t, decode(t, r.body)), other)

	// Independent: renaming the copy leaves the source unchanged.
	expect(t, "rename copy", f.do(t, "PATCH", detailPath(cid), `{"name":"changed"}`), 200, "")
	sameDetail(t, "source after the copy changed", f.get(t, src.id), before)

	// Bad requests change nothing.
	expect(t, "foreign folder", f.do(t, "POST", copyPath(src.id), fmt.Sprintf(`{"folder_id":%d}`, missingID)), 400, invalidPK(missingID))
	expect(t, "blank name", f.do(t, "POST", copyPath(src.id), `{"name":" "}`), 400, `{"name":["This field may not be blank."]}`)
	expect(t, "missing survey", f.do(t, "POST", copyPath(missingID), ""), 404, notFound)
	g := newFixture(t, time.Now)
	expect(t, "another account's survey", g.do(t, "POST", copyPath(src.id), ""), 404, notFound)
	expect(t, "trash", f.do(t, "DELETE", detailPath(src.id), ""), 204, "")
	expect(t, "trashed survey", f.do(t, "POST", copyPath(src.id), ""), 409, deleted)
	if got := listed(t, f.st, f.acct.ID, fid); len(got) != 1 {
		t.Fatalf("folder lists %v; want the first copy only", got)
	}
	if pending, err := f.st.PendingCopies(t.Context(), time.Now().Add(time.Hour)); err != nil || len(pending) != 0 {
		t.Fatalf("pending copies %v, %v", pending, err)
	}
}

// TestCopyConcurrent: a 200-element survey with conditions copied twice at
// once gives two complete, independent surveys; calls grow as
// elements/25.
func TestCopyConcurrent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Home")
	src := makeBigSurvey(t, f.st, f.acct.ID, fid, 200)
	before := f.get(t, src.id)
	var wg sync.WaitGroup
	replies := make([]reply, 2)
	for i := range replies {
		wg.Go(func() { replies[i] = f.do(t, "POST", copyPath(src.id), "") })
	}
	wg.Wait()
	ids := map[float64]bool{}
	for i, r := range replies {
		if r.code != 201 {
			t.Fatalf("copy %d: %d %s", i, r.code, r.body)
		}
		cid := idOf(t, decode(t, r.body))
		cp := f.get(t, cid)
		checkCopy(t, before, cp, src.elements, storedDocs(t, f.st, cid))
		for _, e := range flatten(t, cp) {
			if ids[e["id"].(float64)] {
				t.Fatalf("element id %v in both copies", e["id"])
			}
			ids[e["id"].(float64)] = true
		}
		// 200 elements, settings, variables: 9 batches of 25, plus the
		// reads, the id counters, the claim and the final transaction.
		if r.calls > 200/25+12 {
			t.Fatalf("copy %d made %d DynamoDB calls", i, r.calls)
		}
		t.Logf("copy of 200 elements: %d DynamoDB calls", r.calls)
	}
}

// TestCopyAtTheLimit: racing copies at the account's limit of live
// surveys: exactly as many succeed as there is room for; the others answer
// 400 (the limit's) and leave nothing behind.
func TestCopyAtTheLimit(t *testing.T) {
	t.Parallel()
	st := store.New(testenv.Config(t), testenv.Store(t).TableName())
	st.Limits = survey.AccountLimits{LiveSurveys: 4, Folders: 10}
	acct, key := testenv.NewAccount(t, survey.PlanPro)
	f := &fixture{st: st, h: testenv.Conform(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(st), Store: st, Now: time.Now})), acct: acct, key: key}
	fid := folder(t, st, acct.ID, "Home")
	src := makeBigSurvey(t, st, acct.ID, fid, 12)
	var wg sync.WaitGroup
	var ok, refused atomic.Int64
	for range 6 {
		wg.Go(func() {
			r := f.do(t, "POST", copyPath(src.id), "")
			switch r.code {
			case 201:
				ok.Add(1)
			case 400:
				refused.Add(1)
			default:
				t.Errorf("copy: %d %s", r.code, r.body)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 3 || refused.Load() != 3 {
		t.Fatalf("%d copies made, %d refused; want 3 and 3", ok.Load(), refused.Load())
	}
	if c, err := st.AccountCounts(t.Context(), acct.ID); err != nil || c.LiveSurveys != 4 {
		t.Fatalf("counts %+v, %v; want 4 live surveys", c, err)
	}
	if got := listed(t, st, acct.ID, fid); len(got) != 4 {
		t.Fatalf("folder lists %d surveys, want 4", len(got))
	}
	if pending, err := st.PendingCopies(t.Context(), time.Now().Add(time.Hour)); err != nil || len(pending) != 0 {
		t.Fatalf("pending copies %v, %v", pending, err)
	}
}

type copyFaultKey struct{}

// TestCopyKilledHalfWay: a copy whose process dies after some of its writes
// (every DynamoDB call of the request fails from the 6th BatchWriteItem on,
// its own clean-up included) leaves nothing visible: no list shows it, no
// survey answers at its id. The sweeper's clean-up, once the copy is past
// its deadline, removes every item it wrote. A copy that fails in its last
// transaction cleans up after itself at once.
func TestCopyKilledHalfWay(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "Home")
	src := makeBigSurvey(t, f.st, f.acct.ID, fid, 200)
	ctx := context.WithValue(t.Context(), copyFaultKey{}, true)

	var writes atomic.Int64
	restore := localaws.InjectFaults(func(ctx context.Context, service, op string) error {
		if ctx.Value(copyFaultKey{}) == nil || service != "DynamoDB" {
			return nil
		}
		if op == "BatchWriteItem" && writes.Add(1) > 5 || writes.Load() > 5 {
			return errors.New("injected: the process died")
		}
		return nil
	})
	source, err := f.st.CopySource(ctx, f.acct.ID, src.id)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.st.CopySurvey(ctx, source, store.CopySpec{AccountID: f.acct.ID, FolderID: fid, Name: "dies", Plan: survey.PlanPro})
	restore()
	if err == nil {
		t.Fatal("the copy succeeded through the faults")
	}
	pending, err := f.st.PendingCopies(t.Context(), time.Now().Add(time.Hour))
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending copies %v, %v; want the dead one", pending, err)
	}
	dead := pending[0].SurveyID
	if n := partitionItems(t, f.st, dead); n == 0 {
		t.Fatal("the dead copy wrote nothing: the fault came too early to test anything")
	}
	if got := listed(t, f.st, f.acct.ID, fid); !slices.Equal(got, []int64{src.id}) {
		t.Fatalf("folder lists %v; want the source only", got)
	}
	expect(t, "the dead copy's detail", f.do(t, "GET", detailPath(dead), ""), 404, notFound)

	// Before its deadline the sweeper leaves it; after, it removes it.
	if n, err := f.st.CleanPendingCopies(t.Context(), time.Now()); err != nil || n != 0 {
		t.Fatalf("clean-up before the deadline removed %d, %v", n, err)
	}
	if n, err := f.st.CleanPendingCopies(t.Context(), time.Now().Add(store.CopyDeadline+time.Minute)); err != nil || n < 1 {
		t.Fatalf("clean-up removed %d, %v", n, err)
	}
	if n := partitionItems(t, f.st, dead); n != 0 {
		t.Fatalf("%d items of the dead copy remain", n)
	}
	if pending, _ := f.st.PendingCopies(t.Context(), time.Now().Add(time.Hour)); len(pending) != 0 {
		t.Fatalf("markers remain: %v", pending)
	}

	// Failing in its last transaction (a folder deleted meanwhile is
	// one way), a copy removes what it wrote itself.
	var tx atomic.Int64
	restore = localaws.InjectFaults(func(ctx context.Context, service, op string) error {
		if ctx.Value(copyFaultKey{}) != nil && op == "TransactWriteItems" && tx.Add(1) == 2 {
			return errors.New("injected: the last transaction fails")
		}
		return nil
	})
	_, err = f.st.CopySurvey(ctx, source, store.CopySpec{AccountID: f.acct.ID, FolderID: fid, Name: "fails", Plan: survey.PlanPro})
	restore()
	if err == nil {
		t.Fatal("the copy succeeded through the fault")
	}
	if pending, _ := f.st.PendingCopies(t.Context(), time.Now().Add(time.Hour)); len(pending) != 0 {
		t.Fatalf("a failed copy left its marker: %v", pending)
	}
	if got := listed(t, f.st, f.acct.ID, fid); !slices.Equal(got, []int64{src.id}) {
		t.Fatalf("folder lists %v; want the source only", got)
	}
}

// partitionItems counts the items under SURVEY#<sid>.
func partitionItems(t *testing.T, st *store.Store, sid int64) int {
	t.Helper()
	out, err := st.Client().Query(t.Context(), &dynamodb.QueryInput{
		TableName: aws.String(st.TableName()), KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: store.SurveyPK(sid)}},
		Select:                    types.SelectCount, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}

// storedDocs reads the element documents of a survey as stored, fields the
// detail does not show (conditions) included.
func storedDocs(t *testing.T, st *store.Store, sid int64) map[int64]map[string]any {
	t.Helper()
	out, err := st.Client().Query(t.Context(), &dynamodb.QueryInput{
		TableName: aws.String(st.TableName()), KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :e)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: store.SurveyPK(sid)}, ":e": &types.AttributeValueMemberS{Value: "ELEMENT#"}},
		ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[int64]map[string]any{}
	for _, it := range out.Items {
		var doc map[string]any
		if err := json.Unmarshal([]byte(it["doc"].(*types.AttributeValueMemberS).Value), &doc); err != nil {
			t.Fatal(err)
		}
		docs[int64(doc["id"].(float64))] = doc
	}
	return docs
}
