package surveys_test

import (
	"fmt"
	"testing"
	"time"

	"surveyservice/internal/testenv"
	"surveyservice/shared/survey"
)

// TestTrashAndRestore: DELETE moves to the trash, writes answer 409, restore
// brings it back.
func TestTrashAndRestore(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Now)
	a := folder(t, f.st, f.acct.ID, "A")
	b := folder(t, f.st, f.acct.ID, "B")
	other, _ := testenv.NewAccount(t, survey.PlanPro)
	foreign := folder(t, f.st, other.ID, "Theirs")
	trashedView := map[string]any{"deleted": true, "active": false}

	t.Run("trash, refuse writes, restore", func(t *testing.T) {
		orig, sid := f.create(t, a, "Trashed")
		r := f.do(t, "DELETE", detailPath(sid), "")
		if r.code != 204 || len(r.body) != 0 {
			t.Fatalf("DELETE: %d %q", r.code, r.body)
		}
		t.Logf("DELETE: %d DynamoDB calls", r.calls)
		trashed := with(orig, trashedView)
		sameDetail(t, "GET in the trash", f.get(t, sid), trashed)
		checkListed(t, f.st, f.acct.ID, sid, 0, a, b)
		writes := []struct{ method, path, body string }{
			{"PATCH", detailPath(sid), `{"name":"Changed"}`},
			{"PATCH", detailPath(sid), `{"language":4}`},
			{"PATCH", detailPath(sid), `{}`},
			{"PATCH", detailPath(sid), fmt.Sprintf(`{"folder_id":%d}`, b)},
			{"PATCH", detailPath(sid), fmt.Sprintf(`{"name":"Changed","folder_id":%d}`, a)},
			{"DELETE", detailPath(sid), ""},
		}
		for _, w := range writes {
			expect(t, w.method+" "+w.body+" in the trash", f.do(t, w.method, w.path, w.body), 409, deleted)
		}
		sameDetail(t, "GET after refused writes", f.get(t, sid), trashed)
		checkListed(t, f.st, f.acct.ID, sid, 0, a, b)

		r = f.do(t, "POST", restorePath(sid), "")
		if r.code != 200 {
			t.Fatalf("restore: %d %s", r.code, r.body)
		}
		t.Logf("restore: %d DynamoDB calls", r.calls)
		sameDetail(t, "restore answer", decode(t, r.body), orig)
		sameDetail(t, "GET after restore", f.get(t, sid), orig)
		checkListed(t, f.st, f.acct.ID, sid, a, b)

		for _, body := range []string{"", `{}`, fmt.Sprintf(`{"folder_id":%d}`, b)} {
			r := f.do(t, "POST", restorePath(sid), body)
			if r.code != 200 {
				t.Fatalf("restore %q of a live survey: %d %s", body, r.code, r.body)
			}
			sameDetail(t, "restore of a live survey", decode(t, r.body), orig)
			checkListed(t, f.st, f.acct.ID, sid, a, b)
		}
		// Writable again.
		r = f.do(t, "PATCH", detailPath(sid), `{"name":"Back"}`)
		if r.code != 200 {
			t.Fatalf("PATCH after restore: %d %s", r.code, r.body)
		}
		sameDetail(t, "PATCH after restore", decode(t, r.body), with(orig, map[string]any{"name": "Back"}))
	})

	t.Run("restore with an empty object", func(t *testing.T) {
		orig, sid := f.create(t, a, "Empty")
		expect(t, "DELETE", f.do(t, "DELETE", detailPath(sid), ""), 204, "")
		r := f.do(t, "POST", restorePath(sid), `{}`)
		if r.code != 200 {
			t.Fatalf("restore: %d %s", r.code, r.body)
		}
		sameDetail(t, "restore answer", decode(t, r.body), orig)
		checkListed(t, f.st, f.acct.ID, sid, a, b)
	})

	t.Run("restore into another folder", func(t *testing.T) {
		orig, sid := f.create(t, a, "Moved")
		expect(t, "DELETE", f.do(t, "DELETE", detailPath(sid), ""), 204, "")
		r := f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, b))
		if r.code != 200 {
			t.Fatalf("restore: %d %s", r.code, r.body)
		}
		want := with(orig, map[string]any{"folder_id": float64(b)})
		sameDetail(t, "restore answer", decode(t, r.body), want)
		sameDetail(t, "GET after restore", f.get(t, sid), want)
		checkListed(t, f.st, f.acct.ID, sid, b, a)
	})

	t.Run("refused restores of a trashed survey", func(t *testing.T) {
		orig, sid := f.create(t, a, "Refused")
		expect(t, "DELETE", f.do(t, "DELETE", detailPath(sid), ""), 204, "")
		gone := deletedFolder(t, f.st, f.acct.ID)
		tests := []struct {
			name, contentType, body string
			code                    int
			want                    string
		}{
			{"folder of another account", "", fmt.Sprintf(`{"folder_id":%d}`, foreign), 400, invalidPK(foreign)},
			{"no folder", "", fmt.Sprintf(`{"folder_id":%d}`, missingID), 400, invalidPK(missingID)},
			{"deleted folder", "", fmt.Sprintf(`{"folder_id":%d}`, gone), 400, invalidPK(gone)},
			{"folder_id 0", "", `{"folder_id":0}`, 400, invalidPK(0)},
			{"folder_id string", "", fmt.Sprintf(`{"folder_id":"%d"}`, b), 400, `{"folder_id":["Incorrect type. Expected pk value, received str."]}`},
			{"folder_id null", "", `{"folder_id":null}`, 400, `{"folder_id":["This field may not be null."]}`},
			{"body a list", "", `[]`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
			{"body text/plain", "text/plain", `{}`, 415, `{"detail":"Unsupported media type \"text/plain\" in request."}`},
		}
		for _, tt := range tests {
			ct := tt.contentType
			if ct == "" {
				ct = "application/json"
			}
			expect(t, tt.name, serve(t, f.h, "POST", restorePath(sid), f.key, ct, tt.body), tt.code, tt.want)
		}
		sameDetail(t, "GET after refused restores", f.get(t, sid), with(orig, trashedView))
		checkListed(t, f.st, f.acct.ID, sid, 0, a, b)
		if got := listed(t, f.st, other.ID, foreign); len(got) != 0 {
			t.Errorf("the other account's folder lists %v", got)
		}
	})

	// A survey not in the trash: a folder_id that names no live folder of
	// the account is refused exactly as for a trashed one, not ignored.
	t.Run("refused restores of a live survey", func(t *testing.T) {
		orig, sid := f.create(t, a, "Live")
		gone := deletedFolder(t, f.st, f.acct.ID)
		tests := []struct {
			name, body string
			want       string
		}{
			{"folder of another account", fmt.Sprintf(`{"folder_id":%d}`, foreign), invalidPK(foreign)},
			{"no folder", fmt.Sprintf(`{"folder_id":%d}`, missingID), invalidPK(missingID)},
			{"deleted folder", fmt.Sprintf(`{"folder_id":%d}`, gone), invalidPK(gone)},
			{"folder_id 0", `{"folder_id":0}`, invalidPK(0)},
			{"folder_id null", `{"folder_id":null}`, `{"folder_id":["This field may not be null."]}`},
		}
		for _, tt := range tests {
			expect(t, tt.name, f.do(t, "POST", restorePath(sid), tt.body), 400, tt.want)
		}
		sameDetail(t, "GET after refused restores", f.get(t, sid), orig)
		checkListed(t, f.st, f.acct.ID, sid, a, b)
		// Its own folder and another live one of the account: 200, unchanged.
		for _, fid := range []int64{a, b} {
			r := f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, fid))
			if r.code != 200 {
				t.Fatalf("restore into %d of a live survey: %d %s", fid, r.code, r.body)
			}
			sameDetail(t, "restore of a live survey", decode(t, r.body), orig)
		}
		checkListed(t, f.st, f.acct.ID, sid, a, b)
	})

	t.Run("folder deleted", func(t *testing.T) {
		c := folder(t, f.st, f.acct.ID, "C")
		orig, sid := f.create(t, c, "Orphan")
		if err := f.st.DeleteFolder(t.Context(), f.acct.ID, c); err != nil {
			t.Fatal(err)
		}
		trashed := with(orig, trashedView)
		sameDetail(t, "GET after its folder was deleted", f.get(t, sid), trashed)
		expect(t, "PATCH", f.do(t, "PATCH", detailPath(sid), `{"name":"Changed"}`), 409, deleted)
		expect(t, "DELETE", f.do(t, "DELETE", detailPath(sid), ""), 409, deleted)
		expect(t, "restore without body", f.do(t, "POST", restorePath(sid), ""), 409, folderGone)
		expect(t, "restore with {}", f.do(t, "POST", restorePath(sid), `{}`), 409, folderGone)
		expect(t, "restore into the deleted folder", f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, c)), 400, invalidPK(c))
		expect(t, "restore into no folder", f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, missingID)), 400, invalidPK(missingID))
		expect(t, "restore into a foreign folder", f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, foreign)), 400, invalidPK(foreign))
		expect(t, "restore with a list", f.do(t, "POST", restorePath(sid), `[]`), 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`)
		sameDetail(t, "GET after refused restores", f.get(t, sid), trashed)
		checkListed(t, f.st, f.acct.ID, sid, 0, a, b)

		r := f.do(t, "POST", restorePath(sid), fmt.Sprintf(`{"folder_id":%d}`, b))
		if r.code != 200 {
			t.Fatalf("restore into B: %d %s", r.code, r.body)
		}
		want := with(orig, map[string]any{"folder_id": float64(b)})
		sameDetail(t, "restore answer", decode(t, r.body), want)
		sameDetail(t, "GET after restore", f.get(t, sid), want)
		checkListed(t, f.st, f.acct.ID, sid, b, a)
	})
}

// TestClosedAndActive: closed from the expiration date (UTC) on, even
// before the sweep; active only when not stopped, closed or deleted.
func TestClosedAndActive(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC)
	dates := []struct {
		name, date string
		closed     bool
	}{
		{"yesterday", "2024-03-09", true},
		{"today", "2024-03-10", true},
		{"tomorrow", "2024-03-11", false},
		{"none", "", false},
		{"long ago", "1999-12-31", true},
		{"next year", "2025-01-01", false},
	}
	for _, d := range dates {
		for _, stopped := range []bool{false, true} {
			for _, del := range []bool{false, true} {
				name := fmt.Sprintf("expires %s, stopped %v, deleted %v", d.name, stopped, del)
				t.Run(name, func(t *testing.T) {
					sv := survey.Survey{ID: 1, Name: "S", Language: 1, ExpirationDate: d.date, IsStopped: stopped, Deleted: del, Created: now}
					wantActive := !stopped && !d.closed && !del
					if got := sv.Closed(now); got != d.closed {
						t.Errorf("Closed = %v, want %v", got, d.closed)
					}
					if got := sv.Active(now); got != wantActive {
						t.Errorf("Active = %v, want %v", got, wantActive)
					}
					if got := sv.Summary(now).Active; got != wantActive {
						t.Errorf("Summary active = %v, want %v", got, wantActive)
					}
				})
			}
		}
	}
	// "Today" is the UTC day, whatever the clock's zone.
	tehran := time.FixedZone("IRST", 3*3600+1800)
	zoned := []struct {
		name   string
		now    time.Time
		date   string
		closed bool
	}{
		{"local day ahead of UTC", time.Date(2024, 3, 10, 2, 0, 0, 0, tehran), "2024-03-10", false},
		{"local day ahead of UTC, UTC today", time.Date(2024, 3, 10, 2, 0, 0, 0, tehran), "2024-03-09", true},
		{"last nanosecond of the UTC day before", time.Date(2024, 3, 9, 23, 59, 59, 999999999, time.UTC), "2024-03-10", false},
		{"first instant of the UTC day", time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC), "2024-03-10", true},
	}
	for _, z := range zoned {
		sv := survey.Survey{ExpirationDate: z.date}
		if got := sv.Closed(z.now); got != z.closed {
			t.Errorf("%s: Closed(%s) with %s = %v, want %v", z.name, z.now, z.date, got, z.closed)
		}
		if got := sv.Active(z.now); got != !z.closed {
			t.Errorf("%s: Active = %v, want %v", z.name, got, !z.closed)
		}
	}
}
