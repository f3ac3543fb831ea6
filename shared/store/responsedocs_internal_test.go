package store

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"surveyservice/shared/survey"
)

// TestResponseDocsForms: setDocs stores the documents compressed when
// that makes the item smaller and as the two strings otherwise, in the
// smaller of the two formats (brotli up to brotliMaxDocs; DEFLATE on a
// tie), never larger than DEFLATE alone, and docs reads back the same
// strings from any. Below maxDocsBytes the packed form is
// always the smaller: DEFLATE stores what it cannot compress at 5 bytes a
// 64 KB block, and "z" is 15 bytes shorter than the two names.
func TestResponseDocsForms(t *testing.T) {
	t.Parallel()
	prose := `{"101":"The checkout page took too long to load on my phone, and I had to enter my address twice.",` +
		`"102":"ارسال سفارش دو روز دیر شد ولی بسته‌بندی خوب بود","103":"👍🏽 fine 🎉","104":[1,2,3],"105":"The checkout page was slow"}`
	// long is as long as brotli takes with variables {}.
	long := `{"1":"` + strings.Repeat("The parcel came late; ", brotliMaxDocs/16) + `"}`
	long = long[:brotliMaxDocs-binary.MaxVarintLen64-4] + `"}`
	cases := []struct {
		name, answers, variables string
		format                   byte // 0: plain
	}{
		{"prose", prose, `{"name":"Ali","score":3}`, docsBrotli},
		{"empty", `{}`, `{}`, docsBrotli},
		{"null answers", `null`, `{}`, docsBrotli},
		{"short", `{"1":"q9Zx"}`, `{}`, docsBrotli},
		{"choices", `{"4101":[4130],"4108":7,"4115":{"4301":4310,"4302":4311},"4122":[4140,4144]}`, `{}`, docsBrotli},
		{"a hex token", `{"1":"0c8a0c9e90fabdeb729e97d66031ca3e61e8fd84"}`, `{}`, docsDeflate},
		{"a tie", `{"12":3,"13":4,"14":5,"15":1,"16":2}`, `{}`, docsDeflate},
		{"as long as brotli takes", long, `{}`, docsBrotli},
		{"longer than brotli takes", long, `{"a":1}`, docsDeflate},
		{"at the limit", `{"1":"` + strings.Repeat("ab", (survey.MaxResponseBytes-10)/2) + `"}`, `{}`, docsDeflate},
		{"past what a reader inflates", `{"1":"` + strings.Repeat("a", maxDocsBytes) + `"}`, `{}`, 0},
	}
	for _, c := range cases {
		var it responseItem
		it.setDocs(c.answers, c.variables)
		if format := byte(0); len(it.Docs) > 0 && it.Docs[0] != c.format || it.Docs == nil && c.format != 0 {
			if it.Docs != nil {
				format = it.Docs[0]
			}
			t.Errorf("%s: format %d, want %d", c.name, format, c.format)
		}
		if d := deflateDocs(c.answers, c.variables); it.Docs != nil && len(it.Docs) > len(d) {
			t.Errorf("%s: packed in %d bytes, DEFLATE alone in %d", c.name, len(it.Docs), len(d))
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

// deflated is z in attrDocs's format docsDeflate around raw (its length
// prefix included by the caller).
func deflated(raw []byte) []byte {
	var buf bytes.Buffer
	buf.WriteByte(docsDeflate)
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	_, _ = w.Write(raw)
	_ = w.Close()
	return buf.Bytes()
}

// brotlied is z in format docsBrotli around raw, in a window of 2^lgwin
// bytes.
func brotlied(raw []byte, lgwin int) []byte {
	var buf bytes.Buffer
	buf.WriteByte(docsBrotli)
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 5, LGWin: lgwin})
	_, _ = w.Write(raw)
	_ = w.Close()
	return buf.Bytes()
}

// TestResponseDocsBounded: a stored value that inflates past
// maxDocsBytes (a corrupted or forged item: 32 MB of zeros in 32 KB of
// DEFLATE, in 20 bytes of brotli) is an error, read no further than the
// bound; so are an unknown format, a truncated stream, a length past the
// documents and, in brotli, a window larger than maxBrotliWindow (which
// the decoder would allocate) or brotli's large window.
func TestResponseDocsBounded(t *testing.T) {
	t.Parallel()
	bomb, bomb2 := deflated(make([]byte, 32<<20)), brotlied(make([]byte, 32<<20), maxBrotliWindow)
	if len(bomb) > 64<<10 || len(bomb2) > 64<<10 {
		t.Fatalf("the bombs are %d and %d bytes", len(bomb), len(bomb2))
	}
	short := append(binary.AppendUvarint(nil, 10), "{}"...) // says 10 bytes of answers, holds 2
	ok := deflateDocs(`{"1":"an answer, an answer, an answer"}`, `{}`)
	ok2 := brotliDocs(`{"1":"an answer, an answer, an answer"}`, `{}`)
	docs := append(binary.AppendUvarint(nil, 2), "{}{}"...)
	wide := brotlied(docs, maxBrotliWindow+1)
	if _, _, err := unpackDocs(brotlied(docs, maxBrotliWindow)); err != nil {
		t.Fatalf("a window of 2^%d: %v", maxBrotliWindow, err)
	}
	for name, z := range map[string][]byte{
		"bomb": bomb, "unknown format": append([]byte{9}, ok[1:]...), "truncated": ok[:len(ok)/2],
		"length past the documents": deflated(short), "empty": {}, "no stream": {docsDeflate},
		"brotli bomb": bomb2, "brotli truncated": ok2[:len(ok2)/2], "brotli length past the documents": brotlied(short, 10),
		"brotli no stream": {docsBrotli}, "brotli window past the bound": wide, "brotli large window": {docsBrotli, 0x11, 0x00},
		"DEFLATE read as brotli": append([]byte{docsBrotli}, ok[1:]...), "brotli read as DEFLATE": append([]byte{docsDeflate}, ok2[1:]...),
	} {
		if _, _, err := unpackDocs(z); !errors.Is(err, errDocs) {
			t.Errorf("%s: %v, want errDocs", name, err)
		}
	}
	for _, z := range [][]byte{bomb, bomb2} {
		it := responseItem{ID: 7, Docs: z, Submitted: "2026-11-30T00:00:00.000000Z", Started: "2026-11-30T00:00:00.000000Z"}
		if _, err := it.response(); !errors.Is(err, errDocs) {
			t.Errorf("response() of a bomb in format %d: %v, want errDocs", z[0], err)
		}
	}
}

// TestBrotliWindowBits: brotliWindowBits reads the window the encoder
// declares, every one RFC 7932 allows, and what setDocs writes is within
// maxBrotliWindow.
func TestBrotliWindowBits(t *testing.T) {
	t.Parallel()
	for lgwin := 10; lgwin <= 24; lgwin++ {
		if got := brotliWindowBits(brotlied([]byte("{}"), lgwin)[1:]); got != lgwin {
			t.Errorf("LGWin %d: read %d", lgwin, got)
		}
	}
	if got := brotliWindowBits(brotliDocs(`{}`, `{}`)[1:]); got != brotliWindow || got > maxBrotliWindow {
		t.Errorf("setDocs writes a window of 2^%d, want 2^%d (at most 2^%d)", got, brotliWindow, maxBrotliWindow)
	}
	if 1<<brotliWindow-16 < brotliMaxDocs {
		t.Errorf("a window of 2^%d does not hold brotliMaxDocs", brotliWindow)
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
	f.Add(brotliDocs(`{"1":"ارسال سفارش دو روز دیر شد، the parcel was late"}`, `{"v":"x"}`), `{"1":"an answer"}`, `{}`)
	f.Add(brotliDocs(`{}`, `{}`), `{"1":[1,2],"2":{"3":4}}`, `{"n":1}`)
	f.Add(brotlied(make([]byte, 1<<20), maxBrotliWindow), strings.Repeat("x", 300), "")
	f.Add([]byte{docsBrotli, 0x11, 0x00}, "", "")
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

// FuzzUnpackDocs: the decoder alone, at the speed of decoding (each
// input of FuzzResponseDocs also compresses, brotli's quality 10 a
// thousand times slower than reading): whatever a stored z holds,
// unpackDocs never panics, never answers more than maxDocsBytes, and
// answers the same twice.
func FuzzUnpackDocs(f *testing.F) {
	for _, z := range [][]byte{
		packDocs(`{"1":"an answer, an answer, an answer"}`, `{"v":"x"}`),
		deflateDocs(`{"1":"ارسال سفارش 👍🏽"}`, `{}`),
		brotliDocs(`{"1":"ارسال سفارش دو روز دیر شد، the parcel was late"}`, `{"v":"x"}`),
		deflated(make([]byte, 1<<16)),
		brotlied(make([]byte, 1<<20), maxBrotliWindow),
		{docsDeflate, 0x01, 0x00, 0x00, 0xff, 0xff},
		{docsBrotli, 0x11, 0x00},
	} {
		f.Add(z)
	}
	f.Fuzz(func(t *testing.T, z []byte) {
		a, v, err := unpackDocs(z)
		if err != nil {
			return
		}
		if len(a)+len(v) > maxDocsBytes {
			t.Fatalf("unpacked %d bytes, past %d", len(a)+len(v), maxDocsBytes)
		}
		if a2, v2, err := unpackDocs(z); err != nil || a2 != a || v2 != v {
			t.Fatalf("unpacked again: %q, %q, %v", a2, v2, err)
		}
	})
}
