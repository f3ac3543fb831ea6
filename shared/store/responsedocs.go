package store

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/andybalholm/brotli"

	"surveyservice/shared/survey"
)

// A response's answers and variables are two JSON documents, written once,
// read whole and never queried inside. Stored as they are, a response of
// a dozen text answers is a 1-2 KB item: 4 write units in the submission's
// transaction (2 a KB) and 2 for its GSI1 copy. Compressed, it fits in
// 1 KB: 2 and 1. So the item holds either the attribute attrDocs (binary:
// the two documents compressed together) when that is smaller, or the two
// strings "answers" and "variables" as before; responses written before
// are plain and read as they always did.
//
// Two formats, both read forever. DEFLATE (the standard library's) takes
// the documents to 55-60 % of their bytes: a dozen short answers in
// English made an item under 1 KB, in English and Persian (2 bytes a
// letter) about half of them. Brotli (RFC 7932) takes another 10-25 % off
// short text: its built-in dictionary holds words and phrases of English
// and a dozen other languages (and JSON's and HTML's scaffolding), and its
// context modelling sees UTF-8's lead bytes, which a Persian letter spends
// a byte on; with it every one of them fits. setDocs compresses in both
// and keeps the smaller (DEFLATE wins on a few: random tokens and the
// like), so nothing is stored larger than DEFLATE alone stored it; brotli
// only up to brotliMaxDocs (its CPU: docs/scale.md). setDocs is the one
// place that chooses, docs the one place that reads:
// docs/data-model.md#responses-and-their-shards.

// attrDocs is the response attribute holding its answers and variables
// compressed (absent on a plain item).
const attrDocs = "z"

// The first byte of attrDocs is the format of what follows, a compressed
// stream of uvarint(len(answers)) || answers || variables: docsDeflate a
// raw DEFLATE stream (RFC 1951), docsBrotli a brotli stream (RFC 7932)
// whose window is at most 1<<maxBrotliWindow bytes. Another format would
// take another byte.
const (
	docsDeflate = 1
	docsBrotli  = 2
)

// brotliQuality is the quality setDocs writes brotli at: 10, its first
// with the optimal parsing that makes short text small (9 and below
// save a third of what it does), at half the CPU of 11 for sizes within
// a per cent of it, either way (docs/scale.md).
const brotliQuality = 10

// brotliMaxDocs bounds the documents setDocs tries in brotli: at
// brotliQuality a KB of text costs it 1-2 ms (DEFLATE's best 0.03 ms), so
// past 16 KB (about 30 ms, a submission's own time again) the documents,
// rare, are DEFLATE's only.
const brotliMaxDocs = 16 << 10

// brotliWindow is the window (log2 bytes) setDocs writes brotli with: one
// that holds everything it compresses (a window is 16 bytes short of its
// power of two). maxBrotliWindow is the largest a reader takes: a stream
// may declare up to 16 MB, which the decoder allocates whatever the
// stream's length, so a forged item of a few bytes could cost a reader
// 16 MB.
const (
	brotliWindow    = 15
	maxBrotliWindow = 16
)

// maxDocsBytes bounds what attrDocs may decompress to: a submission's and
// an edit's documents are at most survey.MaxResponseBytes (checked on the
// plain JSON, a contract of the API, not of storage), and setDocs
// compresses nothing larger, so a corrupted or hostile item cannot make a
// reader inflate more than this (a DEFLATE stream grows up to 1,032 to 1,
// a brotli stream further).
const maxDocsBytes = survey.MaxResponseBytes + binary.MaxVarintLen64

// errDocs is a response's attrDocs that does not decode.
var errDocs = errors.New("store: response documents")

// docWriters and brotliWriters are compressors to reuse: each holds about
// 1 MB of tables, which a submission would otherwise allocate every time.
var (
	docWriters = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(io.Discard, flate.BestCompression) // the level is valid: no error
		return w
	}}
	brotliWriters = sync.Pool{New: func() any {
		return brotli.NewWriterOptions(io.Discard, brotli.WriterOptions{Quality: brotliQuality, LGWin: brotliWindow})
	}}
)

// packDocs is answers and variables compressed in attrDocs's smaller
// format, or nil when that would not make the item smaller than the two
// strings (their names counted: DynamoDB bills names and values) or they
// are larger than a reader inflates.
func packDocs(answers, variables string) []byte {
	plain := len("answers") + len(answers) + len("variables") + len(variables)
	if len(answers)+len(variables) > maxDocsBytes-binary.MaxVarintLen64 {
		return nil
	}
	z := deflateDocs(answers, variables)
	if len(answers)+len(variables) <= brotliMaxDocs-binary.MaxVarintLen64 {
		if b := brotliDocs(answers, variables); len(b) < len(z) {
			z = b
		}
	}
	if len(attrDocs)+len(z) >= plain {
		return nil
	}
	return z
}

// writeDocs writes the documents as both formats compress them.
func writeDocs(w io.Writer, answers, variables string) {
	var n [binary.MaxVarintLen64]byte
	_, _ = w.Write(n[:binary.PutUvarint(n[:], uint64(len(answers)))]) // a bytes.Buffer takes every write
	_, _ = io.WriteString(w, answers)
	_, _ = io.WriteString(w, variables)
}

// deflateDocs is the documents in format docsDeflate.
func deflateDocs(answers, variables string) []byte {
	return compressDocs(docsDeflate, &docWriters, answers, variables)
}

// brotliDocs is the documents in format docsBrotli.
func brotliDocs(answers, variables string) []byte {
	return compressDocs(docsBrotli, &brotliWriters, answers, variables)
}

// docsCompressor is a compressor a pool of format's keeps (flate's and
// brotli's writers both are).
type docsCompressor interface {
	io.WriteCloser
	Reset(io.Writer)
}

// compressDocs is the documents in format, compressed by a writer of
// pool (reused: each holds large tables).
func compressDocs(format byte, pool *sync.Pool, answers, variables string) []byte {
	var buf bytes.Buffer
	buf.WriteByte(format)
	w := pool.Get().(docsCompressor)
	defer pool.Put(w)
	w.Reset(&buf)
	writeDocs(w, answers, variables)
	_ = w.Close()
	return buf.Bytes()
}

// brotliWindowBits is the window (log2 bytes) a brotli stream's first
// bits declare (RFC 7932 section 9.1), or 0 for none RFC 7932 allows.
func brotliWindowBits(s []byte) int {
	if len(s) == 0 {
		return 0
	}
	switch b := s[0]; {
	case b&1 == 0:
		return 16
	case b>>1&7 != 0:
		return 17 + int(b>>1&7)
	case b>>4&7 == 0:
		return 17
	case b>>4&7 == 1: // the large window of a brotli extension
		return 0
	default:
		return 8 + int(b>>4&7)
	}
}

// unpackDocs is the answers and variables packDocs compressed in z. It
// inflates at most maxDocsBytes (and answers an error past it) whatever z
// says.
func unpackDocs(z []byte) (answers, variables string, err error) {
	var r io.Reader
	switch {
	case len(z) > 0 && z[0] == docsDeflate:
		f := flate.NewReader(bytes.NewReader(z[1:]))
		defer f.Close()
		r = f
	case len(z) > 0 && z[0] == docsBrotli:
		if w := brotliWindowBits(z[1:]); w == 0 || w > maxBrotliWindow {
			return "", "", fmt.Errorf("%w: a brotli window of 2^%d bytes", errDocs, w)
		}
		r = brotli.NewReader(bytes.NewReader(z[1:]))
	default:
		return "", "", fmt.Errorf("%w: unknown format", errDocs)
	}
	b, err := io.ReadAll(io.LimitReader(r, maxDocsBytes+1))
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", errDocs, err)
	}
	if len(b) > maxDocsBytes {
		return "", "", fmt.Errorf("%w: larger than %d bytes", errDocs, maxDocsBytes)
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return "", "", fmt.Errorf("%w: bad length", errDocs)
	}
	return string(b[k : k+int(n)]), string(b[k+int(n):]), nil
}

// setDocs stores answers and variables (JSON) in the item: compressed
// when that is smaller, else as the two strings; the other form is
// cleared.
func (it *responseItem) setDocs(answers, variables string) {
	it.Answers, it.Variables, it.Docs = "", "", nil
	if z := packDocs(answers, variables); z != nil {
		it.Docs = z
		return
	}
	it.Answers, it.Variables = answers, variables
}

// docs is the item's answers and variables (JSON), whichever form it
// stores them in: every reader of a response's documents reads them here.
func (it responseItem) docs() (answers, variables string, err error) {
	if len(it.Docs) == 0 {
		return it.Answers, it.Variables, nil
	}
	return unpackDocs(it.Docs)
}
