package pages

import (
	"fmt"
	"strings"

	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// fileTexts are a file-upload question's words (contract section 16).
type fileTexts struct {
	Accepted, UpTo, TypeRefused, SizeRefused, Uploading, Uploaded, Failed, NoScript string
	// Comma and Semicolon are the language's list punctuation (Persian
	// and Arabic write ، and ؛).
	Comma, Semicolon string
}

var fileTextsByLang = map[string]fileTexts{
	"en": {Accepted: "Accepted", UpTo: "up to %d MB", TypeRefused: "Files of this type are not accepted.",
		SizeRefused: "The file is larger than %d MB.", Uploading: "Uploading…", Uploaded: "Uploaded", Failed: "The upload failed; try again.",
		NoScript: "Sending a file needs the page's script.", Comma: ", ", Semicolon: "; "},
	"fa": {Accepted: "پذیرفته", UpTo: "تا %d مگابایت", TypeRefused: "فایل‌هایی از این نوع پذیرفته نمی‌شوند.",
		SizeRefused: "فایل بزرگ‌تر از %d مگابایت است.", Uploading: "در حال بارگذاری…", Uploaded: "بارگذاری شد",
		Failed:   "بارگذاری ناموفق بود؛ دوباره تلاش کنید.",
		NoScript: "فرستادن فایل به اسکریپت صفحه نیاز دارد.", Comma: "، ", Semicolon: "؛ "},
	"ar": {Accepted: "المقبول", UpTo: "حتى %d ميغابايت", TypeRefused: "لا تُقبل ملفات من هذا النوع.",
		SizeRefused: "الملف أكبر من %d ميغابايت.", Uploading: "جارٍ الرفع…", Uploaded: "تم الرفع", Failed: "فشل الرفع؛ حاول مرة أخرى.",
		NoScript: "يتطلب إرسال ملف نص الصفحة البرمجي.", Comma: "، ", Semicolon: "؛ "},
	"tr": {Accepted: "Kabul edilenler", UpTo: "en fazla %d MB", TypeRefused: "Bu türdeki dosyalar kabul edilmiyor.",
		SizeRefused: "Dosya %d MB'tan büyük.", Uploading: "Yükleniyor…", Uploaded: "Yüklendi", Failed: "Yükleme başarısız oldu; yeniden deneyin.",
		NoScript: "Dosya göndermek için sayfanın betiği gerekir.", Comma: ", ", Semicolon: "; "},
}

func fileTextsFor(lang string) fileTexts {
	if t, ok := fileTextsByLang[lang]; ok {
		return t
	}
	return fileTextsByLang["en"]
}

// fileQuestion writes a file-upload question: a native file input whose
// accept attribute and data attributes carry the element's rules, which
// uploads.js checks before it asks for a presigned POST; a progress bar
// and a live status line. The upload id it gets is the answer.
func (d *doc) fileQuestion(q survey.ElementView, t texts) {
	id := q.ID
	ft := t.File
	maxMB, types := q.MaxFileSizeMB, q.AllowedFileTypes
	if maxMB == 0 || len(types) == 0 {
		maxMB, types = q.FileRules()
	}
	accept := make([]string, len(types))
	for i, ext := range types {
		accept[i] = "." + ext
	}
	// In the page's digits and punctuation: "پذیرفته: PDF، PNG؛ تا ۱۰ مگابایت."
	hint := ft.Accepted + ": " + strings.ToUpper(strings.Join(types, ft.Comma)) + ft.Semicolon + localDigits(t.Zero, fmt.Sprintf(ft.UpTo, maxMB)) + "."
	d.w("<div class=\"q file\" data-id=\"%s\" data-type=\"11\"%s data-max-bytes=\"%s\" data-types=\"%s\" data-msg-type=\"%s\""+
		" data-msg-size=\"%s\" data-msg-uploading=\"%s\" data-msg-uploaded=\"%s\" data-msg-failed=\"%s\">\n",
		num(id), requiredAttr(q.AnswerRequired), num(maxMB*uploads.MiB), text(strings.Join(types, ",")), text(ft.TypeRefused),
		text(localDigits(t.Zero, fmt.Sprintf(ft.SizeRefused, maxMB))), text(ft.Uploading), text(ft.Uploaded), text(ft.Failed))
	d.w("<label for=\"a%s\" class=\"qt\">%s%s</label>\n", num(id), text(q.Title), required(q, t))
	if q.Description != "" {
		d.w("<p class=\"qd\">%s</p>\n", ltext(q.Description))
	}
	d.w("<p class=\"qd\" id=\"h%s\">%s <noscript>%s</noscript></p>\n", num(id), text(hint), text(ft.NoScript))
	d.w("<input type=\"file\" id=\"a%s\" name=\"f%s\" accept=\"%s\" aria-describedby=\"h%s s%s\"%s>\n", num(id), num(id), text(strings.Join(accept, ",")), num(id), num(id), req(q))
	d.w("<progress class=\"upload-progress\" max=\"100\" value=\"0\" hidden aria-hidden=\"true\"></progress>\n"+
		"<p class=\"upload-status\" id=\"s%s\" role=\"status\" aria-live=\"polite\"></p>\n</div>\n", num(id))
}
