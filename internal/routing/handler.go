package routing

import (
	"fmt"
	"net/http"
	"sort"
)

// notFound is API Gateway's own answer when no route matches and the API
// has no $default route.
const notFound = `{"message":"Not Found"}`

// Handler serves each request with the handler of the target its route
// selects under reading, as API Gateway invokes the function behind a
// route; a request no route matches answers API Gateway's own 404. It fails
// when a route targets no handler, or a handler is the target of no route
// (it could never be reached).
func (t *Table) Handler(reading Reading, targets map[string]http.Handler) (http.Handler, error) {
	reached := map[string]bool{}
	for _, r := range t.Routes() {
		if targets[r.Target] == nil {
			return nil, fmt.Errorf("routing: route %q targets %q, which has no handler", r.Key(), r.Target)
		}
		reached[r.Target] = true
	}
	var unreached []string
	for name := range targets {
		if !reached[name] {
			unreached = append(unreached, name)
		}
	}
	if len(unreached) > 0 {
		sort.Strings(unreached)
		return nil, fmt.Errorf("routing: no route targets %v", unreached)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, ok := t.Select(r.Method, r.URL.EscapedPath(), reading)
		if !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(notFound))
			return
		}
		targets[m.Route.Target].ServeHTTP(w, r)
	}), nil
}
