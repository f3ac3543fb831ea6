package survey

// QuestionElements returns the elements of the questions list in the order
// a responder meets them (the detail's pages, flattened: a group, then its
// questions), leaving out ids that have no element. It is what CheckAnswers
// takes, and the column order of the owner's CSV and results table (keep
// only the Answerable ones there).
func (l Layout) QuestionElements(elements map[int64]Element) []Element {
	out := make([]Element, 0, len(l.Questions))
	for _, page := range l.Pages() {
		for _, id := range page {
			if e, ok := elements[id]; ok {
				out = append(out, e)
			}
		}
	}
	return out
}
