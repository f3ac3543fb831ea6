package store

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"surveyservice/shared/survey"
)

// A response's answers and variables are two JSON documents, written once,
// read whole and never queried inside. Stored as they are, a response of
// a dozen text answers is a 1-2 KB item: 4 write units in the submission's
// transaction (2 a KB) and 2 for its GSI1 copy. Compressed (DEFLATE,
// the standard library's), the documents take 55-60 % of their bytes, and
// a dozen short answers in English make an item under 1 KB: 2 and 1 (in
// Persian, 2 bytes a letter, about half of them: docs/scale.md). So the
// item holds either the attribute attrDocs (binary: the two documents
// compressed together) when that is smaller, or the two strings "answers"
// and "variables" as before;
// responses written before are plain and read as they always did.
// setDocs is the one place that chooses, docs the one place that reads:
// docs/data-model.md#responses-and-their-shards.

// attrDocs is the response attribute holding its answers and variables
// compressed (absent on a plain item).
const attrDocs = "z"

// docsDeflate is the first byte of attrDocs: the format of what follows,
// a raw DEFLATE stream (RFC 1951) of uvarint(len(answers)) || answers ||
// variables. Another format would take another byte.
const docsDeflate = 1

// maxDocsBytes bounds what attrDocs may decompress to: a submission's and
// an edit's documents are at most survey.MaxResponseBytes (checked on the
// plain JSON, a contract of the API, not of storage), and setDocs
// compresses nothing larger, so a corrupted or hostile item cannot make a
// reader inflate more than this (a DEFLATE stream grows up to 1,032 to 1).
const maxDocsBytes = survey.MaxResponseBytes + binary.MaxVarintLen64

// errDocs is a response's attrDocs that does not decode.
var errDocs = errors.New("store: response documents")

// docWriters are DEFLATE compressors to reuse: each holds about 1 MB of
// tables, which a submission would otherwise allocate every time.
var docWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(io.Discard, flate.BestCompression) // the level is valid: no error
	return w
}}

// packDocs is answers and variables compressed in attrDocs's format, or nil
// when that would not make the item smaller than the two strings (their
// names counted: DynamoDB bills names and values) or they are larger than
// a reader inflates.
func packDocs(answers, variables string) []byte {
	plain := len("answers") + len(answers) + len("variables") + len(variables)
	if len(answers)+len(variables) > maxDocsBytes-binary.MaxVarintLen64 {
		return nil
	}
	var buf bytes.Buffer
	buf.WriteByte(docsDeflate)
	w := docWriters.Get().(*flate.Writer)
	defer docWriters.Put(w)
	w.Reset(&buf)
	var n [binary.MaxVarintLen64]byte
	_, _ = w.Write(n[:binary.PutUvarint(n[:], uint64(len(answers)))]) // a bytes.Buffer takes every write
	_, _ = io.WriteString(w, answers)
	_, _ = io.WriteString(w, variables)
	_ = w.Close()
	if len(attrDocs)+buf.Len() >= plain {
		return nil
	}
	return buf.Bytes()
}

// unpackDocs is the answers and variables packDocs compressed in z. It
// inflates at most maxDocsBytes (and answers an error past it) whatever z
// says.
func unpackDocs(z []byte) (answers, variables string, err error) {
	if len(z) == 0 || z[0] != docsDeflate {
		return "", "", fmt.Errorf("%w: unknown format", errDocs)
	}
	r := flate.NewReader(bytes.NewReader(z[1:]))
	defer r.Close()
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
