// Package routing models how an API Gateway HTTP API picks the route of a
// request ("Routing API requests" in the API Gateway developer guide), so
// that the tests can hold template.yaml's routes to the function that serves
// each path of the contract, and `make run` can send each request to the
// function the deployed API would invoke.
//
// The documented order: a full match of the route and the method (a path
// variable {name} matches one non-empty segment), then a match through a
// greedy path variable {proxy+}, the most specific such route, then
// $default. Among several matches, the more specific route is the one whose
// segments, compared from the left, first show a literal where the other
// has a variable, or a variable where the other has the greedy variable
// (the guide's example: GET /pets/dog/1 before GET /pets/dog/{id} before
// GET /pets/{proxy+} before ANY /{proxy+}); at equal paths an explicit
// method beats ANY. What the documentation leaves open is the request's
// final "/": Reading names the two candidates, and callers say which they use.
package routing

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Default is the path of the catch-all route, as SAM's HttpApi event and
// API Gateway's route key write it.
const Default = "$default"

// Any is the method of a route that accepts every method.
const Any = "ANY"

// Reading is one interpretation of a final "/" in a request path, which the
// API Gateway documentation does not settle.
type Reading int

const (
	// SlashIgnored: one final "/" is dropped before matching, so /x/
	// matches the route /x, and {proxy+} needs at least one character.
	SlashIgnored Reading = iota + 1
	// SlashLiteral: the path is matched as sent, so /x/ does not match /x;
	// {proxy+} matches one or more characters, or the empty final segment
	// after a "/" (/x/ matches /x/{proxy+} with proxy "").
	SlashLiteral
)

// Readings are both readings, for what must hold under either.
var Readings = []Reading{SlashIgnored, SlashLiteral}

func (r Reading) String() string {
	switch r {
	case SlashIgnored:
		return "final slash ignored"
	case SlashLiteral:
		return "final slash literal"
	}
	return fmt.Sprintf("Reading(%d)", int(r))
}

// Route is one route of the API and the integration it targets (in this
// service, a function's logical id in template.yaml).
type Route struct {
	// Method is Any or one HTTP method.
	Method string
	// Path is the resource path ("/api/folders/{proxy+}") or Default.
	Path   string
	Target string
}

// Key is the route key as API Gateway writes it in an event's routeKey:
// "ANY /api/folders/{proxy+}", or "$default".
func (r Route) Key() string {
	if r.Path == Default {
		return Default
	}
	return r.Method + " " + r.Path
}

// Match is the route selected for a request and its path parameters,
// percent-decoded as API Gateway passes them to the integration (a value
// that is not valid percent-encoding is passed as sent).
type Match struct {
	Route      Route
	Parameters map[string]string
}

// Table is a validated set of routes.
type Table struct {
	routes   []compiled
	fallback *Route
}

type kind int

// The kinds of a route segment, in increasing specificity; none is past a
// route's last segment.
const (
	none kind = iota
	greedy
	variable
	literal
)

type segment struct {
	kind kind
	text string // the literal, or the variable's name
}

type compiled struct {
	Route
	segs []segment
}

// methods are those a route may name besides Any.
var methods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

var variableName = regexp.MustCompile(`^\{([A-Za-z0-9_]+)(\+?)\}$`)

// New validates routes as API Gateway would refuse them, and more strictly:
// a path starts with "/" and never ends with one (except the root "/"),
// has no empty segment, names each variable once, and has a greedy variable
// only as its last segment; no two routes have the same method and path
// shape; at most one $default, on Any.
func New(routes []Route) (*Table, error) {
	t := &Table{}
	shapes := map[string]string{}
	for _, r := range routes {
		if r.Method != Any && !methods[r.Method] {
			return nil, fmt.Errorf("routing: route %q: method %q is neither ANY nor an HTTP method", r.Key(), r.Method)
		}
		if r.Path == Default {
			if r.Method != Any {
				return nil, fmt.Errorf("routing: $default must be on ANY, not %s", r.Method)
			}
			if t.fallback != nil {
				return nil, fmt.Errorf("routing: $default declared twice (%s and %s)", t.fallback.Target, r.Target)
			}
			t.fallback = &r
			continue
		}
		segs, err := compile(r.Path)
		if err != nil {
			return nil, fmt.Errorf("routing: route %q: %w", r.Key(), err)
		}
		shape := r.Method + " " + shapeOf(segs)
		if other, dup := shapes[shape]; dup {
			return nil, fmt.Errorf("routing: routes %q and %q are the same route", other, r.Key())
		}
		shapes[shape] = r.Key()
		t.routes = append(t.routes, compiled{Route: r, segs: segs})
	}
	return t, nil
}

// MustNew is New for a table fixed in the code; it panics on an invalid one.
func MustNew(routes []Route) *Table {
	t, err := New(routes)
	if err != nil {
		panic(err)
	}
	return t
}

// Routes lists the table's routes, $default last.
func (t *Table) Routes() []Route {
	out := make([]Route, 0, len(t.routes)+1)
	for _, c := range t.routes {
		out = append(out, c.Route)
	}
	if t.fallback != nil {
		out = append(out, *t.fallback)
	}
	return out
}

func compile(path string) ([]segment, error) {
	if path == "/" {
		return []segment{{kind: literal}}, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("path must start with /")
	}
	if strings.HasSuffix(path, "/") {
		return nil, fmt.Errorf("path ends with /: API Gateway creates no such route")
	}
	parts := strings.Split(path[1:], "/")
	segs := make([]segment, len(parts))
	names := map[string]bool{}
	for i, p := range parts {
		switch m := variableName.FindStringSubmatch(p); {
		case p == "":
			return nil, fmt.Errorf("empty segment")
		case m != nil:
			if names[m[1]] {
				return nil, fmt.Errorf("variable {%s} named twice", m[1])
			}
			names[m[1]] = true
			segs[i] = segment{kind: variable, text: m[1]}
			if m[2] == "+" {
				if i != len(parts)-1 {
					return nil, fmt.Errorf("greedy variable {%s+} is not the last segment", m[1])
				}
				segs[i].kind = greedy
			}
		case strings.ContainsAny(p, "{}"):
			return nil, fmt.Errorf("segment %q: a variable is a whole segment {name} or {name+}", p)
		default:
			segs[i] = segment{kind: literal, text: p}
		}
	}
	return segs, nil
}

// shapeOf writes segs without variable names: /a/{x} and /a/{y} are the
// same route to API Gateway.
func shapeOf(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		switch s.kind {
		case literal:
			b.WriteString(s.text)
		case variable:
			b.WriteString("{}")
		case greedy:
			b.WriteString("{+}")
		}
	}
	return b.String()
}

// Select answers the route API Gateway picks for a request of method on
// rawPath (the path as sent, percent-encoded: an encoded "/" does not split
// segments) under reading; false when no route matches and there is no
// $default (API Gateway then answers 404 itself).
func (t *Table) Select(method, rawPath string, reading Reading) (Match, bool) {
	path := rawPath
	if reading == SlashIgnored && len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	if strings.HasPrefix(path, "/") {
		segs := strings.Split(path[1:], "/")
		for _, wantGreedy := range []bool{false, true} {
			var best *compiled
			var params map[string]string
			for i := range t.routes {
				c := &t.routes[i]
				if c.Method != Any && c.Method != method || c.greedy() != wantGreedy {
					continue
				}
				p, ok := c.match(segs, reading)
				if ok && (best == nil || c.moreSpecific(best)) {
					best, params = c, p
				}
			}
			if best != nil {
				return Match{Route: best.Route, Parameters: params}, true
			}
		}
	}
	if t.fallback != nil {
		return Match{Route: *t.fallback}, true
	}
	return Match{}, false
}

func (c *compiled) greedy() bool { return c.segs[len(c.segs)-1].kind == greedy }

// match reports whether the request's segments match the route, with the
// route's path parameters.
func (c *compiled) match(segs []string, reading Reading) (map[string]string, bool) {
	n := len(c.segs)
	if c.greedy() {
		n--
		if len(segs) <= n {
			return nil, false
		}
	} else if len(segs) != n {
		return nil, false
	}
	var params map[string]string
	set := func(name, raw string) {
		if params == nil {
			params = map[string]string{}
		}
		v, err := url.PathUnescape(raw)
		if err != nil {
			v = raw
		}
		params[name] = v
	}
	for i, s := range c.segs[:n] {
		switch {
		case s.kind == literal && segs[i] != s.text:
			return nil, false
		case s.kind == variable && segs[i] == "":
			return nil, false
		case s.kind == variable:
			set(s.text, segs[i])
		}
	}
	if c.greedy() {
		rest := strings.Join(segs[n:], "/")
		if rest == "" && reading != SlashLiteral {
			return nil, false
		}
		set(c.segs[n].text, rest)
	}
	return params, true
}

// moreSpecific reports whether c beats o, both matching the same request.
func (c *compiled) moreSpecific(o *compiled) bool {
	for i := 0; i < len(c.segs) || i < len(o.segs); i++ {
		if kc, ko := c.kindAt(i), o.kindAt(i); kc != ko {
			return kc > ko
		}
	}
	return c.Method != Any && o.Method == Any
}

func (c *compiled) kindAt(i int) kind {
	if i < len(c.segs) {
		return c.segs[i].kind
	}
	return none
}
