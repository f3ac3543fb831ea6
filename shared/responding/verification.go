package responding

import (
	"encoding/binary"
	"errors"
	"unicode/utf8"
)

// Verification is what a verification token seals (contract section 18):
// the code's item in the table (ID), the channel and the identity it was
// sent to, the session it was sent for (the hex SHA-256 of its token, as
// sessionHash names it) and when it expires. The code itself is only in
// the message and, salted and hashed, in the table.
type Verification struct {
	ID        [16]byte
	Channel   string // ChannelEmail or ChannelSMS
	Identity  string
	Session   [32]byte
	ExpiresAt int64 // Unix seconds
}

// The verification encoding (version 1):
//
//	version     1 byte   0x01
//	channel     1 byte   1 email, 2 sms
//	id          16 bytes
//	session     32 bytes, the SHA-256 of the session's token
//	expires_at  uvarint  Unix seconds, positive
//	identity    the rest, 1-254 bytes of UTF-8
//
// One encoding per verification, so a decoder's answer re-encodes to its
// input.
const verificationVersion = 1

var errVerification = errors.New("responding: malformed verification")

// Encode writes the verification.
func (v Verification) Encode() []byte {
	b := make([]byte, 0, 2+16+32+10+len(v.Identity))
	ch := byte(1)
	if v.Channel == ChannelSMS {
		ch = 2
	}
	b = append(b, verificationVersion, ch)
	b = append(b, v.ID[:]...)
	b = append(b, v.Session[:]...)
	b = binary.AppendUvarint(b, uint64(v.ExpiresAt))
	return append(b, v.Identity...)
}

// DecodeVerification reads an encoded verification. It never panics.
func DecodeVerification(b []byte) (Verification, error) {
	var v Verification
	if len(b) < 2+len(v.ID)+len(v.Session)+1 || b[0] != verificationVersion {
		return Verification{}, errVerification
	}
	switch b[1] {
	case 1:
		v.Channel = ChannelEmail
	case 2:
		v.Channel = ChannelSMS
	default:
		return Verification{}, errVerification
	}
	b = b[2:]
	copy(v.ID[:], b)
	b = b[len(v.ID):]
	copy(v.Session[:], b)
	b = b[len(v.Session):]
	exp, k := binary.Uvarint(b)
	if k <= 0 || k != len(binary.AppendUvarint(nil, exp)) || exp == 0 || exp > 1<<40 {
		return Verification{}, errVerification
	}
	v.ExpiresAt = int64(exp)
	id := b[k:]
	if len(id) == 0 || len(id) > MaxEmail || !utf8.Valid(id) {
		return Verification{}, errVerification
	}
	v.Identity = string(id)
	return v, nil
}
