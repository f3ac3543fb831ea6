package elements_test

import (
	"fmt"
	"slices"
	"testing"
)

// TestDuplicateQuestion (contract section 21 amended): PATCH
// .../questions/{id}/?duplicate=true copies the question, its choices
// under new ids, right after it; the body's fields apply to the copy and
// the original stays as it was (before, the PATCH renamed the original and
// copied nothing). A bad duplicate value is a 400 on it.
func TestDuplicateQuestion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	first := f.add(t, sid, 2, "")
	pick := f.add(t, sid, 3, `,"choices":[{"name":"A"},{"name":"B"}]`)
	last := f.add(t, sid, 2, "")
	orig := f.get(t, sid, pick)
	r := f.do(t, "PATCH", itemPath(sid, pick)+"?duplicate=true", `{"title":"Copy"}`)
	if r.code != 201 {
		t.Fatalf("duplicate: %d %s", r.code, r.body)
	}
	cp := decode(t, r.body)
	copyID := idOf(t, cp)
	if copyID == pick || cp["title"] != "Copy" || cp["type"] != float64(3) {
		t.Errorf("the copy %v", cp)
	}
	if got := f.get(t, sid, pick); got["title"] != orig["title"] || fmt.Sprint(got["choices"]) != fmt.Sprint(orig["choices"]) {
		t.Errorf("the original changed: %v, was %v", got, orig)
	}
	names := func(e map[string]any) (ns []string, ids []float64) {
		cs, _ := e["choices"].([]any)
		for _, c := range cs {
			c := c.(map[string]any)
			ns, ids = append(ns, c["name"].(string)), append(ids, c["id"].(float64))
		}
		return ns, ids
	}
	on, oids := names(orig)
	cn, cids := names(cp)
	if !slices.Equal(on, cn) || len(cids) != 2 || slices.Contains(oids, cids[0]) || slices.Contains(oids, cids[1]) {
		t.Errorf("choices %v %v, copy's %v %v: want the same names under new ids", on, oids, cn, cids)
	}
	if _, q, _ := f.lists(t, sid); !slices.Equal(q, []int64{first, pick, copyID, last}) {
		t.Errorf("questions %v, want the copy right after the original: %v", q, []int64{first, pick, copyID, last})
	}
	if r := f.do(t, "PATCH", itemPath(sid, pick)+"?duplicate=maybe", `{}`); r.code != 400 || string(r.body) != `{"duplicate":["Must be a valid boolean."]}` {
		t.Errorf("duplicate=maybe: %d %s", r.code, r.body)
	}
}
