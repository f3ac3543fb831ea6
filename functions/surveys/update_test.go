package surveys_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestUpdate: PATCH writes what it is given and answers the detail.
func TestUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	a := folder(t, f.st, f.acct.ID, "A")
	b := folder(t, f.st, f.acct.ID, "B")
	tests := []struct {
		name, body string
		changes    map[string]any
		moved      bool
	}{
		{"name only", `{"name":"Renamed"}`, map[string]any{"name": "Renamed"}, false},
		{"name trimmed", `{"name":"  Trimmed  "}`, map[string]any{"name": "Trimmed"}, false},
		{"name 255 Persian characters", `{"name":"` + strings.Repeat("ش", 255) + `"}`, map[string]any{"name": strings.Repeat("ش", 255)}, false},
		{"language only", `{"language":4}`, map[string]any{"language": "en"}, false},
		{"language to 3", `{"language":3}`, map[string]any{"language": "ar"}, false},
		{"folder_id only", fmt.Sprintf(`{"folder_id":%d}`, b), map[string]any{"folder_id": float64(b)}, true},
		{"all three", fmt.Sprintf(`{"name":"All","language":2,"folder_id":%d}`, b), map[string]any{"name": "All", "language": "tr", "folder_id": float64(b)}, true},
		{"same folder", fmt.Sprintf(`{"folder_id":%d}`, a), nil, false},
		{"empty object", `{}`, nil, false},
		{"no body", ``, nil, false},
		{"read-only and unknown fields ignored", `{"deleted":true,"active":false,"id":1,"url_slug":"x","views":3,"color":"red"}`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, sid := f.create(t, a, "Original")
			r := f.do(t, "PATCH", detailPath(sid), tt.body)
			if r.code != 200 {
				t.Fatalf("PATCH: %d %s", r.code, r.body)
			}
			t.Logf("PATCH %s: %d DynamoDB calls", tt.body, r.calls)
			want := with(orig, tt.changes)
			sameDetail(t, "PATCH answer", decode(t, r.body), want)
			sameDetail(t, "GET after PATCH", f.get(t, sid), want)
			if tt.moved {
				checkListed(t, f.st, f.acct.ID, sid, b, a)
			} else {
				checkListed(t, f.st, f.acct.ID, sid, a, b)
			}
		})
	}
}

// TestUpdateInvalid: a refused PATCH answers 400 (or 415) and changes
// nothing, not even the valid fields sent with the bad one.
func TestUpdateInvalid(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	a := folder(t, f.st, f.acct.ID, "A")
	b := folder(t, f.st, f.acct.ID, "B")
	other, _ := testenv.NewAccount(t, survey.PlanFree)
	foreign := folder(t, f.st, other.ID, "Theirs")
	gone := deletedFolder(t, f.st, f.acct.ID)
	orig, sid := f.create(t, a, "Original")
	tests := []struct {
		name, contentType, body string
		code                    int
		want                    string
	}{
		{"folder_id of another account's folder", "", fmt.Sprintf(`{"folder_id":%d}`, foreign), 400, invalidPK(foreign)},
		{"folder_id of no folder", "", fmt.Sprintf(`{"folder_id":%d}`, missingID), 400, invalidPK(missingID)},
		{"folder_id of a deleted folder", "", fmt.Sprintf(`{"folder_id":%d}`, gone), 400, invalidPK(gone)},
		{"valid fields with a foreign folder", "", fmt.Sprintf(`{"name":"Changed","language":4,"folder_id":%d}`, foreign), 400, invalidPK(foreign)},
		{"folder_id 0", "", `{"folder_id":0}`, 400, invalidPK(0)},
		{"folder_id string", "", fmt.Sprintf(`{"folder_id":"%d"}`, b), 400, `{"folder_id":["Incorrect type. Expected pk value, received str."]}`},
		{"folder_id null", "", `{"folder_id":null}`, 400, `{"folder_id":["This field may not be null."]}`},
		{"name blank", "", `{"name":"   "}`, 400, `{"name":["This field may not be blank."]}`},
		{"name null", "", `{"name":null}`, 400, `{"name":["This field may not be null."]}`},
		{"name too long", "", `{"name":"` + strings.Repeat("a", 256) + `"}`, 400, `{"name":["Ensure this field has no more than 255 characters."]}`},
		{"name number", "", `{"name":5}`, 400, `{"name":["Not a valid string."]}`},
		{"language 9", "", `{"language":9}`, 400, `{"language":["\"9\" is not a valid choice."]}`},
		{"language en", "", `{"language":"en"}`, 400, `{"language":["A valid integer is required."]}`},
		{"language null", "", `{"language":null}`, 400, `{"language":["This field may not be null."]}`},
		{"valid name with a bad language", "", `{"name":"Changed","language":9}`, 400, `{"language":["\"9\" is not a valid choice."]}`},
		{"three errors", "", `{"name":"","language":"x","folder_id":true}`, 400,
			`{"name":["This field may not be blank."],"language":["A valid integer is required."],"folder_id":["Incorrect type. Expected pk value, received bool."]}`},
		{"body a list", "", `[]`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
		{"body null", "", `null`, 400, `{"non_field_errors":["No data provided"]}`},
		{"body text/plain", "text/plain", `{"name":"Changed"}`, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.contentType
			if ct == "" {
				ct = "application/json"
			}
			r := serve(t, f.h, "PATCH", detailPath(sid), f.key, ct, tt.body)
			expect(t, tt.name, r, tt.code, tt.want)
			sameDetail(t, "GET after a refused PATCH", f.get(t, sid), orig)
			checkListed(t, f.st, f.acct.ID, sid, a, b)
			if got := listed(t, f.st, other.ID, foreign); len(got) != 0 {
				t.Errorf("the other account's folder lists %v", got)
			}
		})
	}
}

// TestConcurrentUpdates: two PATCHes of different fields at once both land.
func TestConcurrentUpdates(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	fid := folder(t, f.st, f.acct.ID, "A")
	orig, sid := f.create(t, fid, "Original")
	codes := map[int64]string{1: "fa", 2: "tr", 3: "ar", 4: "en"}
	for round := range 10 {
		name := fmt.Sprintf("Round %d", round)
		lang := int64(round+1)%4 + 1 // never the previous round's
		start := make(chan struct{})
		var wg sync.WaitGroup
		replies := make([]reply, 2)
		for i, body := range []string{fmt.Sprintf(`{"name":%q}`, name), fmt.Sprintf(`{"language":%d}`, lang)} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				replies[i] = f.do(t, "PATCH", detailPath(sid), body)
			}()
		}
		close(start)
		wg.Wait()
		for i, r := range replies {
			if r.code != 200 {
				t.Errorf("round %d PATCH %d: %d %s", round, i, r.code, r.body)
			}
		}
		sameDetail(t, fmt.Sprintf("round %d", round), f.get(t, sid), with(orig, map[string]any{"name": name, "language": codes[lang]}))
	}
}
