package uploads

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"surveyservice/shared/datakey"
	"surveyservice/shared/survey"
)

// Upload is what an upload id seals: the element and the session it was
// made for, the object's random name, and the file as declared (the
// policy made S3 hold it to the size and content type).
type Upload struct {
	Element     int64
	Session     [16]byte // SessionBinding of the session token
	Object      [16]byte
	Size        int64
	ContentType string
	FileName    string
}

// SessionBinding is what binds an upload to its session: the first 16
// bytes of SHA-256 of the session token.
func SessionBinding(session string) [16]byte {
	sum := sha256.Sum256([]byte(session))
	var b [16]byte
	copy(b[:], sum[:])
	return b
}

// NewUpload is an upload of a new object for the element and session.
func NewUpload(element int64, session string, f File) Upload {
	u := Upload{Element: element, Session: SessionBinding(session), Size: f.Size, ContentType: f.ContentType, FileName: f.FileName}
	rand.Read(u.Object[:])
	return u
}

// Key is the upload's object key: Prefix, the survey, the object's name.
func (u Upload) Key(surveyID int64) string {
	return Prefix + strconv.FormatInt(surveyID, 10) + "/" + hex.EncodeToString(u.Object[:])
}

// The encoding (version 1): version byte; element uvarint; session 16
// bytes; object 16 bytes; size uvarint; content type and file name, each
// a uvarint length and bytes.
const uploadVersion = 1

// Encode writes the upload.
func (u Upload) Encode() []byte {
	b := make([]byte, 0, 48+len(u.ContentType)+len(u.FileName))
	b = append(b, uploadVersion)
	b = binary.AppendUvarint(b, uint64(u.Element))
	b = append(b, u.Session[:]...)
	b = append(b, u.Object[:]...)
	b = binary.AppendUvarint(b, uint64(u.Size))
	b = binary.AppendUvarint(b, uint64(len(u.ContentType)))
	b = append(b, u.ContentType...)
	b = binary.AppendUvarint(b, uint64(len(u.FileName)))
	return append(b, u.FileName...)
}

var errUpload = errors.New("uploads: malformed upload")

// DecodeUpload reads an encoded upload; it never panics.
func DecodeUpload(b []byte) (Upload, error) {
	if len(b) < 1 || b[0] != uploadVersion {
		return Upload{}, errUpload
	}
	b = b[1:]
	var u Upload
	el, k := binary.Uvarint(b)
	if k <= 0 || el == 0 || el > 1<<53 || len(b)-k < 32 {
		return Upload{}, errUpload
	}
	u.Element = int64(el)
	b = b[k:]
	copy(u.Session[:], b)
	copy(u.Object[:], b[16:])
	b = b[32:]
	size, k := binary.Uvarint(b)
	if k <= 0 || size == 0 || size > MaxSizeMB*MiB {
		return Upload{}, errUpload
	}
	u.Size = int64(size)
	b = b[k:]
	str := func() (string, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return "", false
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s, utf8.ValidString(s)
	}
	var ok1, ok2 bool
	u.ContentType, ok1 = str()
	u.FileName, ok2 = str()
	if !ok1 || !ok2 || len(b) != 0 {
		return Upload{}, errUpload
	}
	return u, nil
}

// File is an answer to a file-upload question as the response stores it.
type File = survey.FileAnswer

// FileKey is a stored file's object key in the survey's uploads.
func FileKey(surveyID int64, f File) string {
	return Prefix + strconv.FormatInt(surveyID, 10) + "/" + f.Upload
}

// Opener opens sealed upload ids; *links.Sealer implements it.
type Opener interface {
	OpenFor(ctx context.Context, purpose datakey.Purpose, surveyID int64, token string) ([]byte, error)
}

// Refusals of an upload answer at submission, each under the answer's
// element (contract section 16).
const (
	MsgInvalidUpload = "Invalid upload."
	MsgNotUploaded   = "The file has not been uploaded."
	MsgMismatch      = "The uploaded file does not match its upload."
)

// Answer is a responder's answer to a file-upload question: the sealed
// upload id, given for that element of that survey in that session.
type Answer struct {
	Survey, Element int64
	Session, Upload string
}

// Check checks the answer to a file-upload question at submission: its upload is
// an upload sealed for this survey, made for this element and session,
// its file still within the element's rules, and its object in the bucket
// with the declared size and content type. The answer is the file to
// store; msgs the refusals (nil when it passes). It costs one HeadObject,
// made only when everything else holds; S3's and the sealer's errors are
// err.
func (b *Bucket) Check(ctx context.Context, opener Opener, a Answer, rules Rules) (File, []string, error) {
	surveyID, element, session, id := a.Survey, a.Element, a.Session, a.Upload
	plain, err := opener.OpenFor(ctx, datakey.PurposeUpload, surveyID, id)
	if errors.Is(err, datakey.ErrInvalid) {
		return File{}, []string{MsgInvalidUpload}, nil
	}
	if err != nil {
		return File{}, nil, err
	}
	u, err := DecodeUpload(plain)
	if err != nil || u.Element != element || u.Session != SessionBinding(session) {
		return File{}, []string{MsgInvalidUpload}, nil
	}
	f := File{Upload: hex.EncodeToString(u.Object[:]), FileName: u.FileName, Size: u.Size, ContentType: u.ContentType}
	if fields := rules.Check(f); len(fields) > 0 {
		var msgs []string
		for _, name := range []string{"file_name", "content_type", "size"} {
			msgs = append(msgs, fields[name]...)
		}
		return File{}, msgs, nil
	}
	obj, err := b.Head(ctx, u.Key(surveyID))
	if errors.Is(err, ErrNoObject) {
		return File{}, []string{MsgNotUploaded}, nil
	}
	if err != nil {
		return File{}, nil, err
	}
	if obj.Size != u.Size || !strings.EqualFold(obj.ContentType, u.ContentType) {
		return File{}, []string{MsgMismatch}, nil
	}
	return f, nil, nil
}

// validFileName: 1 to MaxFileName characters, no control characters and
// no path separators.
func validFileName(name string) bool {
	if name == "" || utf8.RuneCountInString(name) > MaxFileName || !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == '/' || r == '\\' {
			return false
		}
	}
	return true
}
