package api

import (
	"fmt"
	"net/http"
)

// Answer sizes.
//
// A Lambda function invoked synchronously (as API Gateway invokes it) may
// answer at most 6 MB: the whole response document, 6,291,556 bytes, in
// which the body is a JSON string (its quotes and backslashes escaped) next
// to the status and headers. A larger answer never reaches the client: API
// Gateway answers 502 instead. MaxAnswer leaves a megabyte for that
// envelope. Every route keeps its JSON answer under it by construction
// (docs/api.md, "Answer sizes", lists each bound and how it is held); the
// browsable page, which pretty-prints and HTML-escapes the JSON and can be
// several times larger, falls back to a note asking for the JSON instead.
const MaxAnswer = 5 << 20

// SizeName renders a byte count for messages: "5 MiB", "5.4 MiB", "812 KiB".
func SizeName(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// oversizeJSON is what Respond sends for a JSON answer over MaxAnswer: a
// route's bound failed to hold, which is a bug (a 500, with the size in the
// log), and the same failure here as in Lambda, where the answer would not
// be delivered at all.
var oversizeJSON = []byte(`{"detail":"A server error occurred."}`)

// tooLargePage is the browsable page of an answer whose page would exceed
// MaxAnswer: the request line and a note pointing at the JSON, which fits.
func tooLargePage(r *http.Request, status int, h http.Header, jsonLen int) []byte {
	note := fmt.Sprintf("This answer is %s of JSON, too large to show on this page. Ask for it as JSON: ?format=json or Accept: application/json.",
		SizeName(int64(jsonLen)))
	return browsablePage(WithNote(r, note), status, h, []byte(`"(not shown)"`))
}
