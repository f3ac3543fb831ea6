package store

import "context"

// SetRecountHook runs f at each stage of RecountSurvey ("pass", "write")
// until undo is called. Tests using it must not run in parallel with
// other recounts.
func SetRecountHook(f func(stage string)) (undo func()) {
	recountHook = f
	return func() { recountHook = nil }
}

// SetCodeBackfillSettle makes a code page backfill of survey sid wait for
// f, instead of the writers' lifetime, before its last look: f returns
// when the test's writers that began before the backfill have ended.
func SetCodeBackfillSettle(sid int64, f func(context.Context) error) (undo func()) {
	codeSettleFor.Store(sid, f)
	return func() { codeSettleFor.Delete(sid) }
}
