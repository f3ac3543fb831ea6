package survey_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"surveyservice/shared/survey"
)

// layModel drives a layout with random operations, knowing each element's
// type as the store does.
type layModel struct {
	l     survey.Layout
	types map[int64]survey.ElementType
	next  int64
	ok    map[string]int
	fail  map[string]int
}

func newLayModel() *layModel {
	return &layModel{types: map[int64]survey.ElementType{}, next: 1, ok: map[string]int{}, fail: map[string]int{}}
}

// ids lists the model's elements in a fixed order.
func (m *layModel) ids() []int64 {
	out := make([]int64, 0, len(m.types))
	for id := range m.types {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// pickPrior chooses a prior_question from a selector: none, a missing id,
// any element, or (most often) an element of list which.
func (m *layModel) pickPrior(sel uint8, which survey.List) *int64 {
	ids := m.ids()
	var same []int64
	for _, id := range ids {
		if m.types[id].List() == which {
			same = append(same, id)
		}
	}
	switch {
	case sel < 48:
		return nil
	case sel < 56:
		return pid(int64(1000 + int(sel)))
	case sel < 80 && len(ids) > 0:
		return pid(ids[int(sel)%len(ids)])
	case len(same) > 0:
		return pid(same[int(sel)%len(same)])
	}
	return nil
}

// pickGroup chooses a related_group from a selector: none (most often), a
// missing id, any element, or a group.
func (m *layModel) pickGroup(sel uint8) *int64 {
	ids := m.ids()
	switch {
	case sel < 112:
		return nil
	case sel < 120:
		return pid(int64(1000 + int(sel)))
	case sel < 144 && len(ids) > 0:
		return pid(ids[int(sel)%len(ids)])
	case len(m.l.Groups) > 0:
		return pid(m.l.Groups[int(sel)%len(m.l.Groups)])
	}
	return nil
}

var layTypes = []survey.ElementType{
	survey.TypeWelcome, survey.TypeText, survey.TypeGroup, survey.TypeGroup, survey.TypeMultipleChoice,
	survey.TypeAppreciation, survey.TypeStatement, survey.TypeText, survey.TypeGroup, survey.TypeRating,
}

// step applies one operation decoded from four bytes (about half inserts,
// a third updates, the rest removes) and checks that a refused one left the
// layout as it was.
func (m *layModel) step(t testing.TB, kind, a, b, c uint8) {
	t.Helper()
	before := m.l.Clone()
	switch {
	case kind < 128: // insert
		id := m.next
		m.next++
		typ := layTypes[int(a)%len(layTypes)]
		p := survey.Placement{Prior: m.pickPrior(b, typ.List()), Group: m.pickGroup(c)}
		if err := m.l.Insert(id, typ, p); err != nil {
			m.refused(t, "insert", err, before)
			return
		}
		m.types[id] = typ
		m.ok["insert"]++
		if p.Group != nil {
			if g := m.l.GroupOf(id); g == nil || *g != *p.Group {
				t.Fatalf("insert %d into group %d: GroupOf = %v", id, *p.Group, g)
			}
		}
		if p.Prior != nil && m.l.Order(id) != m.l.Order(*p.Prior)+1 {
			t.Fatalf("insert %d after %d: orders %d, %d", id, *p.Prior, m.l.Order(id), m.l.Order(*p.Prior))
		}
	case kind < 216: // update: a move, a new group, none, or a new type
		ids := m.ids()
		if len(ids) == 0 {
			return
		}
		id := ids[int(a)%len(ids)]
		old := m.types[id]
		typ := old
		if c%7 == 0 {
			typ = layTypes[int(b)%len(layTypes)]
		}
		p := survey.Placement{Prior: m.pickPrior(b, old.List())}
		switch c % 3 {
		case 1:
			p.Group = m.pickGroup(c | 128)
		case 2:
			p.Ungroup = c%2 == 0
		}
		if err := m.l.Update(id, old, typ, p); err != nil {
			m.refused(t, "update", err, before)
			return
		}
		m.types[id] = typ
		m.ok["update"]++
		if p.Ungroup && p.Group == nil && m.l.GroupOf(id) != nil {
			t.Fatalf("update %d with Ungroup: still in group %d", id, *m.l.GroupOf(id))
		}
		if p.Group != nil {
			if g := m.l.GroupOf(id); g == nil || *g != *p.Group {
				t.Fatalf("update %d into group %d: GroupOf = %v", id, *p.Group, g)
			}
		}
		if p.Prior != nil && m.l.Order(id) != m.l.Order(*p.Prior)+1 {
			t.Fatalf("move %d after %d: orders %d, %d", id, *p.Prior, m.l.Order(id), m.l.Order(*p.Prior))
		}
		if p.Prior == nil && p.Group == nil && !sameOrders(before, m.l) {
			t.Fatalf("update %d without prior or group moved elements:\n got %+v\nwant %+v", id, m.l, before)
		}
	default: // remove
		ids := m.ids()
		if len(ids) == 0 {
			return
		}
		id := ids[int(a)%len(ids)]
		m.l.Remove(id)
		delete(m.types, id)
		m.ok["remove"]++
		// The rest keep their relative order.
		for _, pair := range [][2][]int64{{before.Welcome, m.l.Welcome}, {before.Questions, m.l.Questions}, {before.Appreciations, m.l.Appreciations}} {
			want := slices.DeleteFunc(slices.Clone(pair[0]), func(x int64) bool { return x == id })
			if !slices.Equal(pair[1], want) {
				t.Fatalf("remove %d: list %v, want %v", id, pair[1], want)
			}
		}
	}
}

// sameOrders reports whether two layouts hold the same lists.
func sameOrders(a, b survey.Layout) bool {
	return slices.Equal(a.Welcome, b.Welcome) && slices.Equal(a.Questions, b.Questions) && slices.Equal(a.Appreciations, b.Appreciations)
}

func (m *layModel) refused(t testing.TB, op string, err error, before survey.Layout) {
	t.Helper()
	if survey.ErrorCode(err) != survey.EINVALID {
		t.Fatalf("%s refused with %v, want EINVALID", op, err)
	}
	if !sameLayout(m.l, before) {
		t.Fatalf("a refused %s (%v) changed the layout:\n got %+v\nwant %+v", op, err, m.l, before)
	}
	m.fail[op]++
}

// TestLayoutRandomOps: 500 random inserts, moves and removes keep every
// invariant after each step.
func TestLayoutRandomOps(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 2026))
			m := newLayModel()
			for i := range 500 {
				m.step(t, uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)))
				checkLayoutInvariants(t, m.l, m.types)
				if t.Failed() {
					t.Fatalf("after step %d", i)
				}
			}
			t.Logf("seed %d: applied %v, refused %v; %d elements, %d groups, %d members",
				seed, m.ok, m.fail, m.l.Len(), len(m.l.Groups), len(m.l.Members))
			for _, op := range []string{"insert", "update", "remove"} {
				if m.ok[op] < 50 {
					t.Errorf("only %d successful %ss: the test exercises too little", m.ok[op], op)
				}
			}
			if len(m.l.Members) == 0 {
				t.Error("no memberships at the end: groups are not exercised")
			}
		})
	}
}

// FuzzLayoutOps: any sequence of operations keeps the invariants and never
// panics.
func FuzzLayoutOps(f *testing.F) {
	f.Add([]byte{})
	// A group, a question, a member; a move; a removal.
	f.Add([]byte{0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 200, 150, 1, 100, 0, 240, 0, 0, 0})
	// Welcome and appreciation pages, a cross-list prior, a type change.
	f.Add([]byte{0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 60, 0, 0, 2, 0, 0, 150, 3, 5, 7, 200, 0, 100, 2, 230, 1, 0, 0})
	f.Add(bytes4(200))
	f.Add(bytes4(400))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := newLayModel()
		for i := 0; i+4 <= len(data) && i < 4*400; i += 4 {
			m.step(t, data[i], data[i+1], data[i+2], data[i+3])
			checkLayoutInvariants(t, m.l, m.types)
		}
	})
}

// bytes4 is a deterministic seed of n operations.
func bytes4(n int) []byte {
	b := make([]byte, 4*n)
	var x uint32 = 2463534242
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	binary.LittleEndian.PutUint32(b, 0x0000_0200) // start with an insert of a group: 0, 2, 0, 0
	return b
}
