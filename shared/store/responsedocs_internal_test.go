package store

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

// TestResponseDocsForms: setDocs stores the documents compressed when
// that makes the item smaller and as the two strings otherwise, and docs
// reads back the same strings from either. Below maxDocsBytes the packed
// form is always the smaller: DEFLATE stores what it cannot compress at 5
// bytes a 64 KB block, and "z" is 15 bytes shorter than the two names.
func TestResponseDocsForms(t *testing.T) {
	t.Parallel()
	prose := `{"101":"The checkout page took too long to load on my phone, and I had to enter my address twice.",` +
		`"102":"ارسال سفارش دو روز دیر شد ولی بسته‌بندی خوب بود","103":"👍🏽 fine 🎉","104":[1,2,3],"105":"The checkout page was slow"}`
	cases := []struct {
		name, answers, variables string
		packed                   bool
	}{
		{"prose", prose, `{"name":"Ali","score":3}`, true},
		{"empty", `{}`, `{}`, true},
		{"null answers", `null`, `{}`, true},
		{"short", `{"1":"q9Zx"}`, `{}`, true},
		{"at the limit", `{"1":"` + strings.Repeat("ab", (survey.MaxResponseBytes-10)/2) + `"}`, `{}`, true},
		{"past what a reader inflates", `{"1":"` + strings.Repeat("a", maxDocsBytes) + `"}`, `{}`, false},
	}
	for _, c := range cases {
		var it responseItem
		it.setDocs(c.answers, c.variables)
		if packed := it.Docs != nil; packed != c.packed {
			t.Errorf("%s: packed %v, want %v", c.name, packed, c.packed)
		}
		if (it.Docs != nil) == (it.Answers != "" || it.Variables != "") {
			t.Errorf("%s: both forms or neither: %d bytes packed, %q, %q", c.name, len(it.Docs), it.Answers, it.Variables)
		}
		if it.Docs != nil && len(attrDocs)+len(it.Docs) >= len("answers")+len(c.answers)+len("variables")+len(c.variables) {
			t.Errorf("%s: packed in %d bytes, no smaller than the plain %d", c.name, len(it.Docs), len(c.answers)+len(c.variables))
		}
		a, v, err := it.docs()
		if err != nil || a != c.answers || v != c.variables {
			t.Errorf("%s: docs() = %.40q, %.40q, %v; want what was set", c.name, a, v, err)
		}
	}
}

// deflated is z in attrDocs's format around raw (its length prefix
// included by the caller).
func deflated(raw []byte) []byte {
	var buf bytes.Buffer
	buf.WriteByte(docsDeflate)
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	_, _ = w.Write(raw)
	_ = w.Close()
	return buf.Bytes()
}

// TestResponseDocsBounded: a stored value that inflates past
// maxDocsBytes (a corrupted or forged item: 32 MB of zeros in 32 KB) is
// an error, read no further than the bound; so are an unknown format, a
// truncated stream and a length past the documents.
func TestResponseDocsBounded(t *testing.T) {
	t.Parallel()
	bomb := deflated(make([]byte, 32<<20))
	if len(bomb) > 64<<10 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	var n [binary.MaxVarintLen64]byte
	long := deflated(append(n[:binary.PutUvarint(n[:], 10)], "{}"...))
	ok := packDocs(`{"1":"an answer, an answer, an answer"}`, `{}`)
	for name, z := range map[string][]byte{
		"bomb": bomb, "unknown format": append([]byte{9}, ok[1:]...), "truncated": ok[:len(ok)/2],
		"length past the documents": long, "empty": {}, "no stream": {docsDeflate},
	} {
		if _, _, err := unpackDocs(z); !errors.Is(err, errDocs) {
			t.Errorf("%s: %v, want errDocs", name, err)
		}
	}
	it := responseItem{ID: 7, Docs: bomb, Submitted: "2026-11-30T00:00:00.000000Z", Started: "2026-11-30T00:00:00.000000Z"}
	if _, err := it.response(); !errors.Is(err, errDocs) {
		t.Errorf("response() of the bomb: %v, want errDocs", err)
	}
}

// FuzzResponseDocs: unpackDocs, the decoder of what a stored item holds
// (which anyone able to corrupt the table could forge), never panics and
// never answers more than maxDocsBytes; what it answers packs and
// unpacks to itself; and any pair of documents round-trips through
// setDocs and docs.
func FuzzResponseDocs(f *testing.F) {
	f.Add(packDocs(`{"1":"an answer, an answer, an answer"}`, `{"v":"x"}`), "", "")
	f.Add(packDocs(`{}`, `{}`), `{"1":"ارسال سفارش 👍🏽"}`, `{}`)
	f.Add([]byte{docsDeflate, 0x01, 0x00, 0x00, 0xff, 0xff}, `null`, `{"n":1}`)
	f.Add(deflated(make([]byte, 1<<16)), strings.Repeat("x", 300), "")
	f.Fuzz(func(t *testing.T, z []byte, answers, variables string) {
		a, v, err := unpackDocs(z)
		if err == nil {
			if len(a)+len(v) > maxDocsBytes {
				t.Fatalf("unpacked %d bytes, past %d", len(a)+len(v), maxDocsBytes)
			}
			if p := packDocs(a, v); p != nil {
				if a2, v2, err := unpackDocs(p); err != nil || a2 != a || v2 != v {
					t.Fatalf("repacked: %q, %q, %v", a2, v2, err)
				}
			}
		}
		var it responseItem
		it.setDocs(answers, variables)
		if a, v, err := it.docs(); err != nil || a != answers || v != variables {
			t.Fatalf("setDocs(%q, %q) reads back %q, %q, %v", answers, variables, a, v, err)
		}
	})
}
