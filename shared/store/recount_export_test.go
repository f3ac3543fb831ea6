package store

// SetRecountHook runs f at each stage of RecountSurvey ("pass", "write")
// until undo is called. Tests using it must not run in parallel with
// other recounts.
func SetRecountHook(f func(stage string)) (undo func()) {
	recountHook = f
	return func() { recountHook = nil }
}
