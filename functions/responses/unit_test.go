package responses

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"surveyservice/shared/store"
)

func TestParseDateTime(t *testing.T) {
	t.Parallel()
	utc := func(s string) time.Time { v, _ := time.Parse(time.RFC3339Nano, s); return v.UTC() }
	for _, tc := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2026-05-01", utc("2026-05-01T00:00:00Z"), true},
		{"2026-05-01T10:20", utc("2026-05-01T10:20:00Z"), true},
		{"2026-05-01T10:20Z", utc("2026-05-01T10:20:00Z"), true},
		{"2026-05-01T10:20:30", utc("2026-05-01T10:20:30Z"), true},
		{"2026-05-01 10:20:30", utc("2026-05-01T10:20:30Z"), true},
		{"2026-05-01T10:20:30.123456Z", utc("2026-05-01T10:20:30.123456Z"), true},
		{"2026-05-01T10:20:30+03:30", utc("2026-05-01T06:50:30Z"), true},
		{"2026-05-01T10:20:30 03:30", utc("2026-05-01T06:50:30Z"), true}, // an unencoded '+'
		{"2026-05-01T10:20:30-05:00", utc("2026-05-01T15:20:30Z"), true},
		{"2026-05-01T10:20+03:30", utc("2026-05-01T06:50:00Z"), true},
		{"", time.Time{}, false},
		{"yesterday", time.Time{}, false},
		{"2026-13-01", time.Time{}, false},
		{"2026-05-01T25:00", time.Time{}, false},
		{"1714550400", time.Time{}, false},
		{"2026-05-01T10:20:30+0330", time.Time{}, false},
		{"2026-05-01T10:20:30Z garbage", time.Time{}, false},
	} {
		got, ok := parseDateTime(tc.in)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("parseDateTime(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2026-05-01", "2026-05-01T10:20:30 03:30", "2026-05-01T10:20:30.123456789Z", "0000-01-01T00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseDateTime(s)
		if !ok {
			return
		}
		if got.Location() != time.UTC || got.Year() < 0 || got.Year() > 9999 {
			t.Fatalf("parseDateTime(%q) = %v", s, got)
		}
	})
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	for _, p := range []store.ResponsePosition{
		{SubmittedAt: time.Date(2026, 5, 1, 12, 0, 0, 123456000, time.UTC), ID: 1},
		{SubmittedAt: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), ID: 1<<31 - 1},
		{SubmittedAt: time.Unix(0, 0).UTC(), ID: 77},
	} {
		got, err := decodeCursor(encodeCursor(p))
		if err != nil || !got.SubmittedAt.Equal(p.SubmittedAt) || got.ID != p.ID {
			t.Errorf("round trip of %+v = %+v, %v", p, got, err)
		}
	}
	for _, b := range [][]byte{nil, {1}, {2, 0, 1}, {1, 0, 0}, {1, 0, 1, 0}, {1, 0x80, 0, 1}, {1, 0, 0x80, 0x80, 0x80, 0x80, 0x10}} {
		if _, err := decodeCursor(b); err == nil {
			t.Errorf("decodeCursor(% x) accepted", b)
		}
	}
}

// FuzzDecodeCursor: the cursor decoder never panics, and accepts only the
// canonical encoding of a position (what it accepts re-encodes to its
// input), so a cursor has one plaintext.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor(store.ResponsePosition{SubmittedAt: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), ID: 42}))
	f.Add([]byte{1, 0, 1})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 5})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeCursor(b)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeCursor(p), b) || p.ID < 1 || p.ID > 1<<31-1 {
			t.Fatalf("decodeCursor(% x) = %+v, which encodes as % x", b, p, encodeCursor(p))
		}
	})
}

// FuzzDecodeExportLink: the export link decoder never panics and accepts
// only canonical encodings of keys under exports/.
func FuzzDecodeExportLink(f *testing.F) {
	f.Add(encodeExportLink(exportLink{expires: time.Unix(1800000000, 0).UTC(), key: "exports/1/20260501T120000Z-00.csv"}))
	f.Add([]byte{1, 0, 'e'})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := decodeExportLink(b)
		if err != nil {
			return
		}
		if !bytes.Equal(encodeExportLink(l), b) || !strings.HasPrefix(l.key, "exports/") || !utf8.ValidString(l.key) {
			t.Fatalf("decodeExportLink(% x) = %+v", b, l)
		}
	})
}

// TestEscapedSize holds the page budget to what the Lambda runtime writes:
// the body as a JSON string.
func TestEscapedSize(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "<b>&amp;</b>", "\x00\x01\x1f\x7f",
		"سلام دنیا", "\u2028\u2029", "bad \xff\xfe utf-8", "\uFEFFid,submitted_at\r\n", "emoji 😀"} {
		enc, _ := json.Marshal(s) // HTML-escaping, as the runtime's encoding/json
		if got, want := escapedSize([]byte(s)), len(enc)-2; got != want {
			t.Errorf("escapedSize(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestSpreadsheetSafe(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": "", "plain": "plain", "=1+2": "'=1+2", "+98 21": "'+98 21", "-12": "-12", "-1.5e3": "-1.5e3", "+7": "+7",
		"-": "'-", "@SUM(A1)": "'@SUM(A1)", "\tx": "'\tx", "\rx": "'\rx", "a=b": "a=b", "=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")",
	} {
		if got := spreadsheetSafe(in); got != want {
			t.Errorf("spreadsheetSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPageStarts(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	c := newPageStarts(func() time.Time { return now })
	k := pageKey{sid: 1, size: 10, page: 7}
	if p, pos := c.nearest(k); p != 1 || pos != nil {
		t.Fatalf("empty: %d %v", p, pos)
	}
	at := store.ResponsePosition{SubmittedAt: now, ID: 5}
	k5 := k
	k5.page = 5
	c.remember(k5, at)
	if p, pos := c.nearest(k); p != 5 || pos == nil || pos.ID != 5 {
		t.Errorf("nearest to 7 with 5 known: %d %v", p, pos)
	}
	other := k
	other.size = 20
	if p, _ := c.nearest(other); p != 1 {
		t.Errorf("another page size found page %d", p)
	}
	now = now.Add(pageStartTTL)
	if p, _ := c.nearest(k); p != 1 {
		t.Errorf("an expired start was used")
	}
	for i := range maxPageStarts + 10 {
		k := k
		k.page = i + 2
		c.remember(k, at)
	}
	if n := len(c.entries); n > maxPageStarts {
		t.Errorf("%d entries, more than %d", n, maxPageStarts)
	}
}
