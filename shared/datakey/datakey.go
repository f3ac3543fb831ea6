// Package datakey names the data keys of personalised links, as the table
// stores them. It is apart from shared/links so that the store (which every
// function links) does not pull in the KMS client: only the functions that
// seal or open links need that.
package datakey

import (
	"errors"
	"time"
)

// IDLen is the length of a data key id.
const IDLen = 4

// ID names a data key.
type ID [IDLen]byte

// String is the id in hex, as the table stores it.
func (k ID) String() string {
	const hexdigits = "0123456789abcdef"
	b := make([]byte, 0, 2*IDLen)
	for _, c := range k {
		b = append(b, hexdigits[c>>4], hexdigits[c&15])
	}
	return string(b)
}

// Key is a data key as stored: its id, its KMS-wrapped bytes and when it
// was made. The plaintext is never stored.
type Key struct {
	ID      ID
	Wrapped []byte
	Created time.Time
}

// ErrNoKey is a key store's answer for a key (or a current key) it lacks.
var ErrNoKey = errors.New("datakey: no such data key")
