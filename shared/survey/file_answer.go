package survey

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// FileAnswer is the answer to a file-upload question (type 11) as a
// response stores it (contract section 16): the object's name in the
// survey's uploads, the file's name, size in bytes and content type.
type FileAnswer struct {
	Upload      string `json:"upload"`
	FileName    string `json:"file_name"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type"`
}

// DecodeFileAnswer reads a stored file answer; ok is false for anything
// else.
func DecodeFileAnswer(raw []byte) (FileAnswer, bool) {
	var f FileAnswer
	if json.Unmarshal(raw, &f) != nil || f.Upload == "" {
		return FileAnswer{}, false
	}
	return f, true
}

// View is the file as its owner sees it (contract section 16): {"file_name",
// "size", "url"}, url a presigned GET, or null where none is lent (a
// webhook's delivery).
func (f FileAnswer) View(url *string) json.RawMessage {
	b, _ := json.Marshal(struct {
		FileName string  `json:"file_name"`
		Size     int64   `json:"size"`
		URL      *string `json:"url"`
	}{f.FileName, f.Size, url})
	return b
}

// Cell is the file as the CSV and the results table show it: its name and
// size.
func (f FileAnswer) Cell() string {
	return fmt.Sprintf("%s (%s)", f.FileName, HumanSize(f.Size))
}

// HumanSize writes a size in bytes, KB or MB (powers of 1024).
func HumanSize(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
}

// Limits of a file-upload question (contract section 16): max_file_size_mb
// 1-25 (a MB is 2^20 bytes), allowed_file_types 1-10 characters of
// [A-Za-z0-9] each, stored lower case.
const (
	MinFileSizeMB     = 1
	MaxFileSizeMB     = 25
	DefaultFileSizeMB = 10
	MaxFileTypeLen    = 10
	MaxFileTypes      = 50
)

// DefaultFileTypes are the extensions a file-upload question allows unless
// its allowed_file_types says otherwise.
var DefaultFileTypes = []string{"pdf", "jpg", "jpeg", "png", "docx", "xlsx", "zip"}

// FileRules are the element's upload limits as they apply: its own, or the
// defaults where unset.
func (e Element) FileRules() (maxMB int64, allowed []string) {
	maxMB, allowed = e.MaxFileSizeMB, e.AllowedFileTypes
	if maxMB == 0 {
		maxMB = DefaultFileSizeMB
	}
	if len(allowed) == 0 {
		allowed = DefaultFileTypes
	}
	return maxMB, slices.Clone(allowed)
}

// ValidFileType reports whether s is an allowed_file_types item: 1 to
// MaxFileTypeLen characters of [A-Za-z0-9].
func ValidFileType(s string) bool {
	if s == "" || len(s) > MaxFileTypeLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
