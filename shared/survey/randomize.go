package survey

import (
	"crypto/sha256"
	"math/rand/v2"
	"slices"
	"strconv"
)

// SetShuffle records e's choices when it randomizes them, and forgets
// them otherwise.
//
// randomize (contract section 15): each session sees the choices of a
// randomize element in an order of its own, the same on every read of
// that session. The layout keeps the choice ids of such elements
// (Layout.Shuffled), so that a session's start, which reads the layout
// with the survey, needs no element.
func (l *Layout) SetShuffle(e Element) {
	if !e.Randomize || len(e.Choices) < 2 || !e.Type.Takes("choices") {
		delete(l.Shuffled, e.ID)
		return
	}
	ids := make([]int64, len(e.Choices))
	for i, c := range e.Choices {
		ids[i] = c.ID
	}
	if l.Shuffled == nil {
		l.Shuffled = map[int64][]int64{}
	}
	l.Shuffled[e.ID] = ids
}

// ChoiceOrders are a session's orders of the randomized elements' choices
// ({"<element id>": [choice ids]}), seeded by the session (its token):
// the same token always gives the same orders.
func (l Layout) ChoiceOrders(session string) map[string][]int64 {
	out := make(map[string][]int64, len(l.Shuffled))
	if len(l.Shuffled) == 0 {
		return out
	}
	ids := make([]int64, 0, len(l.Shuffled))
	for id := range l.Shuffled {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		seed := sha256.Sum256([]byte("choice-order:" + strconv.FormatInt(id, 10) + ":" + session))
		r := rand.New(rand.NewChaCha8(seed))
		order := slices.Clone(l.Shuffled[id])
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		out[strconv.FormatInt(id, 10)] = order
	}
	return out
}
