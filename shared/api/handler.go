package api

import "net/http"

// HandlerFunc is a handler that returns its failure instead of answering
// it: ServeHTTP hands a non-nil error to Error, the one place that picks a
// status and body. A handler then reads as its happy path (`return err`),
// and cannot write an error and carry on for want of a `return` (the shape
// golang/pkgsite's frontend uses).
//
// A handler that has already written its answer returns nil; one that
// returns an error must not have written anything.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP calls f and answers the error it returns, if any.
func (f HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := f(w, r); err != nil {
		Error(w, r, err)
	}
}
