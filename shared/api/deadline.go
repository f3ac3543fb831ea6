package api

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"surveyservice/shared/survey"
)

// DeadlineMargin is how long before the function's deadline a request
// that is still at work is answered with the API's own 503. A route chains
// several AWS calls, each retried (awsenv.HTTP: 3 attempts of up to 1 s),
// in a 10 s function: without the margin a slow dependency would run into
// Lambda's own timeout, and the client would get API Gateway's generic
// error (no JSON, no Retry-After) instead of the contract's 503. The
// margin leaves time to write the answer and for the adapter and API
// Gateway to carry it; the work itself runs under the shortened deadline,
// so every SDK call and retry stops there too.
const DeadlineMargin = 1500 * time.Millisecond

// MsgTooLate is the 503's detail when a request ran out of time.
const MsgTooLate = "The service could not answer in time; try again shortly."

// Deadline answers 503 (Retry-After, the contract's JSON) margin before
// the request's deadline (Lambda's, carried by the request's context) when
// the handler has not answered by then, or answers with a 5xx because the
// time ran out. The handler's answer is held until it is complete, so the
// 503 never follows part of another answer. Requests without a deadline
// (the local run) pass through as they are.
func Deadline(margin time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			deadline, ok := r.Context().Deadline()
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			stop := deadline.Add(-margin)
			if !time.Now().Before(stop) {
				tooLate(w, r)
				return
			}
			ctx, cancel := context.WithDeadline(r.Context(), stop)
			defer cancel()
			held := &heldWriter{header: http.Header{}}
			done := make(chan struct{})
			panicked := make(chan any, 1)
			go func() {
				defer func() {
					if p := recover(); p != nil {
						if p != http.ErrAbortHandler {
							p = fmt.Sprintf("%v\n\n%s", p, debug.Stack())
						}
						panicked <- p
						return
					}
					close(done)
				}()
				next.ServeHTTP(held, r.WithContext(ctx))
			}()
			select {
			case p := <-panicked:
				panic(p)
			case <-done:
				held.mu.Lock()
				defer held.mu.Unlock()
				if ctx.Err() != nil && held.status >= 500 {
					tooLate(w, r)
					return
				}
				held.flushTo(w)
			case <-ctx.Done():
				held.mu.Lock()
				held.abandoned = true
				held.mu.Unlock()
				tooLate(w, r)
			}
		})
	}
}

func tooLate(w http.ResponseWriter, r *http.Request) {
	Error(w, r, survey.Errorf(survey.EUNAVAILABLE, MsgTooLate))
}

// heldWriter keeps a handler's answer until it is complete; once the
// request is answered without it, it takes writes and drops them.
type heldWriter struct {
	mu        sync.Mutex
	header    http.Header
	status    int
	body      bytes.Buffer
	abandoned bool
}

func (h *heldWriter) Header() http.Header { return h.header }

func (h *heldWriter) WriteHeader(code int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.status == 0 {
		h.status = code
	}
}

func (h *heldWriter) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.abandoned {
		return 0, http.ErrHandlerTimeout
	}
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(b)
}

func (h *heldWriter) flushTo(w http.ResponseWriter) {
	for k, v := range h.header {
		w.Header()[k] = v
	}
	if h.status == 0 {
		h.status = http.StatusOK
	}
	w.WriteHeader(h.status)
	_, _ = w.Write(h.body.Bytes())
}
