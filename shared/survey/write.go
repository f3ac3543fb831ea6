package survey

import (
	"context"
	"sync/atomic"
)

// Write is what a request's write carries into its own transaction
// (contract section 19): the activity entry that records it, and, for a
// member, the editor's shares it was decided on, checked again when it
// commits, so that an unshare committed first refuses it and a write that
// commits never lacks its entry (docs/teams.md, "Decided at commit").
type Write struct {
	// Entry is the activity entry; the store sets At when it commits.
	Entry Activity
	// Folders are the folders whose editor's share the member's write
	// relies on (empty for the owner, whose writes the store checks by
	// account as always).
	Folders []int64
	// InBody are those of Folders that the request's body named (a
	// survey created, moved, copied or restored there): losing one
	// answers 400 on folder_id, as a folder the member does not reach.
	InBody []int64

	// entry is the entry's state: 0 not recorded, 1 in a transaction in
	// flight, 2 committed. A write of several transactions at once (an
	// upload's chunks) puts it in one of them at a time.
	entry atomic.Int32
}

// Member is the member the write's shares belong to, nil for the owner.
func (w *Write) Member() *int64 { return w.Entry.SubUser }

// Rely adds a folder whose editor's share the member's write needs.
func (w *Write) Rely(fid int64) {
	for _, f := range w.Folders {
		if f == fid {
			return
		}
	}
	w.Folders = append(w.Folders, fid)
}

// RelyInBody adds a folder the request's body named.
func (w *Write) RelyInBody(fid int64) {
	w.Rely(fid)
	for _, f := range w.InBody {
		if f == fid {
			return
		}
	}
	w.InBody = append(w.InBody, fid)
}

// TakeEntry reports whether the caller's transaction is to carry the
// entry: it is not committed yet and no other transaction of the write
// carries it now. The caller then tells EntryDone how it went.
func (w *Write) TakeEntry() bool { return w.entry.CompareAndSwap(0, 1) }

// EntryDone ends a transaction that took the entry: committed, the entry
// is recorded; else another transaction of the write may take it.
func (w *Write) EntryDone(committed bool) {
	if committed {
		w.entry.Store(2)
	} else {
		w.entry.Store(0)
	}
}

// AnswerStatus tells the request's write (if ctx carries one) the status
// its success will answer where it is not the method's usual one (a
// retry's 202, minted links' 200), before its transaction commits the
// entry: the entry is then right as committed, with nothing to complete
// after the write.
func AnswerStatus(ctx context.Context, status int) {
	if w, ok := WriteFrom(ctx); ok && !w.Recorded() {
		w.Entry.Status = status
	}
}

// Recorded reports whether the entry committed with the write.
func (w *Write) Recorded() bool { return w.entry.Load() == 2 }

type writeKey struct{}

// WithWrite returns ctx carrying the request's write.
func WithWrite(ctx context.Context, w *Write) context.Context {
	return context.WithValue(ctx, writeKey{}, w)
}

// WriteFrom answers the write ctx carries, if any.
func WriteFrom(ctx context.Context) (*Write, bool) {
	w, ok := ctx.Value(writeKey{}).(*Write)
	return w, ok && w != nil
}
