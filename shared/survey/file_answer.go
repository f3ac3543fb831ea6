package survey

import (
	"encoding/json"
	"fmt"
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
