package uploads

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"surveyservice/shared/survey"
)

// MiB is a MB of max_file_size_mb (contract section 16: 2^20 bytes).
const MiB = 1 << 20

// Limits of a file-upload question (contract section 16).
const (
	MinSizeMB     = survey.MinFileSizeMB
	MaxSizeMB     = survey.MaxFileSizeMB
	DefaultSizeMB = survey.DefaultFileSizeMB
	// MaxFileName bounds a file's name, in characters.
	MaxFileName = 255
	// MaxFileType bounds an allowed_file_types item, in characters.
	MaxFileType = survey.MaxFileTypeLen
)

// DefaultFileTypes are the extensions a file-upload question allows
// unless its allowed_file_types says otherwise.
var DefaultFileTypes = survey.DefaultFileTypes

// RulesOf are a file-upload element's rules, its defaults applied.
func RulesOf(e survey.Element) Rules {
	maxMB, allowed := e.FileRules()
	return Rules{MaxSizeMB: maxMB, Allowed: allowed}
}

// contentTypes are the content types browsers send for an extension. An
// extension not listed takes application/octet-stream only.
var contentTypes = map[string][]string{
	"pdf":  {"application/pdf"},
	"jpg":  {"image/jpeg"},
	"jpeg": {"image/jpeg"},
	"png":  {"image/png"},
	"gif":  {"image/gif"},
	"webp": {"image/webp"},
	"heic": {"image/heic"},
	"txt":  {"text/plain"},
	"csv":  {"text/csv", "application/vnd.ms-excel"},
	"doc":  {"application/msword"},
	"docx": {"application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	"xls":  {"application/vnd.ms-excel"},
	"xlsx": {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	"ppt":  {"application/vnd.ms-powerpoint"},
	"pptx": {"application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	"odt":  {"application/vnd.oasis.opendocument.text"},
	"ods":  {"application/vnd.oasis.opendocument.spreadsheet"},
	"zip":  {"application/zip", "application/x-zip-compressed"},
	"mp3":  {"audio/mpeg"},
	"mp4":  {"video/mp4"},
	"mov":  {"video/quicktime"},
}

// ContentTypes are the content types that match an extension (lower
// case, without the dot).
func ContentTypes(ext string) []string {
	if ct, ok := contentTypes[ext]; ok {
		return ct
	}
	return []string{"application/octet-stream"}
}

// Extension is a file name's extension, lower case, without the dot; ""
// when it has none.
func Extension(name string) string {
	return strings.ToLower(strings.TrimPrefix(path.Ext(name), "."))
}

// Rules are a file-upload question's limits.
type Rules struct {
	MaxSizeMB int64
	Allowed   []string // lower case
}

// Check checks a declared file against the rules: the name's extension
// allowed, the content type matching it, the size from 1 byte to the
// limit. The answer maps file_name, content_type and size to their
// messages; nil when the file passes.
func (r Rules) Check(f File) map[string][]string {
	fields := map[string][]string{}
	ext := Extension(f.FileName)
	switch {
	case !validFileName(f.FileName):
		fields["file_name"] = []string{fmt.Sprintf("Send a file name of 1 to %d characters.", MaxFileName)}
	case ext == "" || !slices.Contains(r.Allowed, ext):
		fields["file_name"] = []string{fmt.Sprintf("Files of this type are not accepted. Allowed: %s.", strings.Join(r.Allowed, ", "))}
	case !slices.Contains(ContentTypes(ext), strings.ToLower(f.ContentType)):
		fields["content_type"] = []string{fmt.Sprintf("The content type does not match a .%s file.", ext)}
	}
	if f.Size < 1 || f.Size > r.MaxSizeMB*MiB {
		fields["size"] = []string{fmt.Sprintf("The file must be from 1 byte to %d MB.", r.MaxSizeMB)}
	}
	if len(fields) == 0 {
		return nil
	}
	return fields
}
