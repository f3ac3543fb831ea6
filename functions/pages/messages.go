package pages

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"surveyservice/shared/challenge"
	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
	"surveyservice/shared/uploads"
)

// Messages of the pages themselves, in English; their translations are
// in pageMessages. A 429 and a 503 are shown by their status, in these
// words (the API's details carry a number of seconds, or are for
// developers).
const (
	msgSomethingWrong = "Something went wrong."
	msgNetwork        = "The network failed; try again."
	msgTiedRanks      = "Give each choice a different rank."
	// msgAtLeast is a multiple-select question's fewest picks, in the
	// responder's words (the API's "Ensure this field has at least N
	// elements." is for developers); %d is the number.
	msgAtLeast = "Choose at least %d."
	// msgAtMost and msgTooLong are a question's most picks (a plain form's
	// checkboxes cannot stop at them) and a text's most characters.
	msgAtMost  = "Choose at most %d."
	msgTooLong = "Use at most %d characters."
	// msgFormResent is the API's 422 for a reused Idempotency-Key, as a
	// responder meets it: a plain form recorded, then sent again from the
	// back button with other answers.
	msgFormResent = "This form was already sent with other answers."
	// msgSurveyChanged is what a responder meets for an answer that names
	// a choice, a question, a row or a variable the owner removed while
	// the page was open: the API's words are for developers.
	msgSurveyChanged = "The survey changed while you were answering; check your answers and send them again."
	// msgNeedsScript is the plain form's refusal on a captcha_needed
	// survey: the page's script solves the challenge, a form cannot.
	msgNeedsScript = "Answering this survey needs JavaScript. Turn JavaScript on in your browser."
	msgThrottled   = "Too many requests; wait a moment and try again."
	msgBusy        = "The service is busy; try again shortly."
	msgNotFound    = "Not found."
	// The refusals of sections 11 and 16 that another group words (the
	// contract's text): a session that has responded, an upload that is
	// another response's.
	msgSessionResponded = "This session has already responded."
	msgFileTaken        = "This file belongs to another response."
	// msgCrossSite is the plain form's refusal of a form another site's
	// page posted (form.go, crossSiteForm).
	msgCrossSite = "This form was sent from another site and was not recorded. Answer here and send it again."
)

// The API's refusals that are field messages, and the guard's 429 (its
// detail is the survey package's own).
var (
	msgChallenge      = fieldMessage(challenge.ErrInvalid, "captcha")
	msgRequired       = fieldMessage(challenge.ErrRequired, "captcha")
	msgLocation       = fieldMessage(survey.ErrLocationRequired, "location")
	msgTooManyGuesses = "Too many failed attempts. Try again later."
)

// The sign-in step's refusals (contract section 18's words).
const (
	msgBadEmail       = "Enter a valid email address."
	msgBadNumber      = survey.PhoneInvalidMessage
	msgAddressRefused = "This address may not respond to this survey."
	msgNumberRefused  = "This number may not respond to this survey."
	msgBadCode        = "Invalid code."
	msgCodeExpired    = "This code has expired. Ask for a new one."
	msgSignIn         = "Sign in to respond to this survey."
)

// isolate is a text of the owner's or the responder's (a question's
// title) as a message embeds it: between U+2068 FIRST STRONG ISOLATE and
// U+2069 POP DIRECTIONAL ISOLATE, so that its own direction is its
// first letter's and a bidi control it leaves open (U+202E, which turns
// what follows right to left) ends with it instead of reversing the
// message after it. Its own isolate controls are left out: an unmatched
// one would move the quote's end (a PDI closing it early, an FSI
// swallowing its PDI). The script's messages do the same (app.js).
func isolate(s string) string {
	return "\u2068" + strings.Map(func(r rune) rune {
		if r >= '\u2066' && r <= '\u2069' {
			return -1
		}
		return r
	}, s) + "\u2069"
}

// fieldMessage is the one message of a refusal's field.
func fieldMessage(e *survey.Error, field string) string {
	if msgs, ok := e.Fields[field].([]string); ok && len(msgs) == 1 {
		return msgs[0]
	}
	panic("pages: " + field + " is not a one-message refusal") // a programming error, found at start
}

// pageMessages are the refusals a responder can meet (the API's and the
// pages' own), by language: every one in fa, ar and tr (contract section
// 16); English is the key.
var pageMessages = map[string]map[string]string{
	"fa": {
		survey.ErrSurveyFull.Detail:           "این پرسش‌نامه تکمیل شده و پاسخ تازه‌ای نمی‌پذیرد.",
		survey.ErrQuotaFull.Detail:            "ظرفیت این پرسش‌نامه برای پاسخ‌هایی مانند پاسخ شما تکمیل شده است.",
		survey.ErrCodeRefused.Detail:          "کد شما پذیرفته نشد.",
		survey.ErrSurveyClosed.Detail:         "این پرسش‌نامه بسته است.",
		survey.ErrLinkUsed.Detail:             "از این پیوند پیش‌تر استفاده شده است.",
		responding.ErrTimeIsUp.Detail:         "زمان پاسخ‌دهی به پایان رسیده است.",
		"Invalid link.":                       "پیوند نامعتبر است.",
		"Invalid session.":                    "نشست نامعتبر است؛ صفحه را دوباره باز کنید.",
		survey.MsgAnswerRequired:              "پاسخ به این پرسش الزامی است.",
		msgSomethingWrong:                     "مشکلی پیش آمد.",
		msgNetwork:                            "اتصال برقرار نشد؛ دوباره تلاش کنید.",
		msgTiedRanks:                          "به هر گزینه رتبه‌ای متفاوت بدهید.",
		msgAtLeast:                            "دست‌کم %d گزینه را انتخاب کنید.",
		msgAtMost:                             "حداکثر %d گزینه را انتخاب کنید.",
		msgTooLong:                            "حداکثر %d نویسه بنویسید.",
		msgFormResent:                         "این فرم پیش‌تر با پاسخ‌های دیگری فرستاده شده است.",
		msgSurveyChanged:                      "پرسش‌نامه هنگام پاسخ دادن شما تغییر کرد؛ پاسخ‌هایتان را بررسی کنید و دوباره بفرستید.",
		msgNeedsScript:                        "پاسخ به این پرسش‌نامه به جاوااسکریپت نیاز دارد. جاوااسکریپت مرورگر خود را روشن کنید.",
		msgCrossSite:                          "این فرم از سایت دیگری فرستاده شده بود و ثبت نشد. همین‌جا پاسخ دهید و دوباره بفرستید.",
		survey.ErrAlreadyResponded.Detail:     "شما پیش‌تر به این پرسش‌نامه پاسخ داده‌اید.",
		survey.ErrNeedsCookies.Detail:         "این پرسش‌نامه برای پذیرفتن پاسخ شما به کوکی نیاز دارد.",
		msgChallenge:                          "بررسی امنیتی پذیرفته نشد؛ دوباره تلاش کنید.",
		msgRequired:                           "این بخش الزامی است.",
		uploads.MsgInvalidUpload:              "فایل بارگذاری‌شده نامعتبر است.",
		uploads.MsgNotUploaded:                "فایل بارگذاری نشده است.",
		uploads.MsgMismatch:                   "فایل بارگذاری‌شده با آنچه اعلام شده بود یکی نیست.",
		msgFileTaken:                          "این فایل از آنِ پاسخ دیگری است.",
		msgSessionResponded:                   "این نشست پیش‌تر پاسخ داده است؛ صفحه را دوباره باز کنید.",
		msgLocation:                           "این پرسش‌نامه به موقعیت مکانی شما نیاز دارد.",
		responding.ErrInvalidEditToken.Detail: "اجازهٔ ویرایش نامعتبر است.",
		responding.ErrEditingDisabled.Detail:  "ویرایش پاسخ‌ها در این پرسش‌نامه فعال نیست.",
		msgTooManyGuesses:                     "تلاش‌های نادرست بسیار شد؛ کمی بعد دوباره تلاش کنید.",
		msgThrottled:                          "درخواست‌ها بیش از اندازه است؛ کمی صبر کنید و دوباره تلاش کنید.",
		msgBusy:                               "سرویس شلوغ است؛ کمی بعد دوباره تلاش کنید.",
		msgNotFound:                           "یافت نشد.",
		errStepsInvalid.Detail:                "فرم خوانده نشد.",
		msgBadEmail:                           "یک نشانی ایمیل معتبر وارد کنید.",
		msgBadNumber:                          "یک شمارهٔ موبایل معتبر وارد کنید.",
		msgAddressRefused:                     "این نشانی اجازهٔ پاسخ به این پرسش‌نامه را ندارد.",
		msgNumberRefused:                      "این شماره اجازهٔ پاسخ به این پرسش‌نامه را ندارد.",
		msgBadCode:                            "کد نادرست است.",
		msgCodeExpired:                        "این کد دیگر معتبر نیست. کد تازه‌ای بخواهید.",
		msgSignIn:                             "برای پاسخ به این پرسش‌نامه وارد شوید.",
	},
	"ar": {
		survey.ErrSurveyFull.Detail:           "اكتمل هذا الاستبيان ولم يعد يقبل إجابات جديدة.",
		survey.ErrQuotaFull.Detail:            "اكتمل هذا الاستبيان للإجابات المشابهة لإجابتك.",
		survey.ErrCodeRefused.Detail:          "لم يُقبل رمزك.",
		survey.ErrSurveyClosed.Detail:         "هذا الاستبيان مغلق.",
		survey.ErrLinkUsed.Detail:             "تم استخدام هذا الرابط من قبل.",
		responding.ErrTimeIsUp.Detail:         "انتهى وقت الإجابة.",
		"Invalid link.":                       "الرابط غير صالح.",
		"Invalid session.":                    "الجلسة غير صالحة؛ أعد فتح الصفحة.",
		survey.MsgAnswerRequired:              "هذا السؤال يتطلب إجابة.",
		msgSomethingWrong:                     "حدث خطأ ما.",
		msgNetwork:                            "فشل الاتصال؛ حاول مرة أخرى.",
		msgTiedRanks:                          "أعطِ كل خيار ترتيبًا مختلفًا.",
		msgAtLeast:                            "اختر %d على الأقل.",
		msgAtMost:                             "اختر %d على الأكثر.",
		msgTooLong:                            "اكتب %d حرفًا على الأكثر.",
		msgFormResent:                         "أُرسل هذا النموذج من قبل بإجابات أخرى.",
		msgSurveyChanged:                      "تغيّر الاستبيان أثناء إجابتك؛ راجع إجاباتك وأرسلها مرة أخرى.",
		msgNeedsScript:                        "تتطلب الإجابة عن هذا الاستبيان جافاسكريبت. فعّل جافاسكريبت في متصفحك.",
		msgCrossSite:                          "أُرسل هذا النموذج من موقع آخر ولم يُسجَّل. أجب هنا وأرسله مرة أخرى.",
		survey.ErrAlreadyResponded.Detail:     "لقد أجبت عن هذا الاستبيان من قبل.",
		survey.ErrNeedsCookies.Detail:         "يحتاج هذا الاستبيان إلى ملفات تعريف الارتباط لقبول إجابتك.",
		msgChallenge:                          "لم يُقبل التحقق الأمني؛ حاول مرة أخرى.",
		msgRequired:                           "هذا الحقل مطلوب.",
		uploads.MsgInvalidUpload:              "الملف المرفوع غير صالح.",
		uploads.MsgNotUploaded:                "لم يتم رفع الملف.",
		uploads.MsgMismatch:                   "الملف المرفوع لا يطابق ما أُعلن عنه.",
		msgFileTaken:                          "هذا الملف يخص إجابة أخرى.",
		msgSessionResponded:                   "أُرسلت إجابة من هذه الجلسة من قبل؛ أعد فتح الصفحة.",
		msgLocation:                           "يحتاج هذا الاستبيان إلى موقعك.",
		responding.ErrInvalidEditToken.Detail: "رمز التعديل غير صالح.",
		responding.ErrEditingDisabled.Detail:  "تعديل الإجابات غير مفعّل لهذا الاستبيان.",
		msgTooManyGuesses:                     "محاولات خاطئة كثيرة؛ حاول مرة أخرى بعد قليل.",
		msgThrottled:                          "طلبات كثيرة جدًا؛ انتظر قليلًا ثم حاول مرة أخرى.",
		msgBusy:                               "الخدمة مشغولة؛ حاول مرة أخرى بعد قليل.",
		msgNotFound:                           "غير موجود.",
		errStepsInvalid.Detail:                "تعذّرت قراءة النموذج.",
		msgBadEmail:                           "أدخل عنوان بريد إلكتروني صالحًا.",
		msgBadNumber:                          "أدخل رقم هاتف محمول صالحًا.",
		msgAddressRefused:                     "لا يُسمح لهذا العنوان بالإجابة عن هذا الاستبيان.",
		msgNumberRefused:                      "لا يُسمح لهذا الرقم بالإجابة عن هذا الاستبيان.",
		msgBadCode:                            "الرمز غير صحيح.",
		msgCodeExpired:                        "انتهت صلاحية هذا الرمز. اطلب رمزًا جديدًا.",
		msgSignIn:                             "سجّل الدخول للإجابة عن هذا الاستبيان.",
	},
	"tr": {
		survey.ErrSurveyFull.Detail:           "Bu anket doldu; yeni yanıt kabul etmiyor.",
		survey.ErrQuotaFull.Detail:            "Bu anket, sizinki gibi yanıtlar için doldu.",
		survey.ErrCodeRefused.Detail:          "Kodunuz kabul edilmedi.",
		survey.ErrSurveyClosed.Detail:         "Bu anket kapalı.",
		survey.ErrLinkUsed.Detail:             "Bu bağlantı daha önce kullanıldı.",
		responding.ErrTimeIsUp.Detail:         "Yanıt verme süresi sona erdi.",
		"Invalid link.":                       "Geçersiz bağlantı.",
		"Invalid session.":                    "Geçersiz oturum; sayfayı yeniden açın.",
		survey.MsgAnswerRequired:              "Bu soru yanıt gerektiriyor.",
		msgSomethingWrong:                     "Bir şeyler ters gitti.",
		msgNetwork:                            "Bağlantı kurulamadı; yeniden deneyin.",
		msgTiedRanks:                          "Her seçeneğe farklı bir sıra verin.",
		msgAtLeast:                            "En az %d seçenek seçin.",
		msgAtMost:                             "En fazla %d seçenek seçin.",
		msgTooLong:                            "En fazla %d karakter yazın.",
		msgFormResent:                         "Bu form daha önce başka yanıtlarla gönderildi.",
		msgSurveyChanged:                      "Siz yanıtlarken anket değişti; yanıtlarınızı kontrol edip yeniden gönderin.",
		msgNeedsScript:                        "Bu ankete yanıt vermek için JavaScript gerekir. Tarayıcınızda JavaScript'i açın.",
		msgCrossSite:                          "Bu form başka bir siteden gönderildi ve kaydedilmedi. Burada yanıtlayıp yeniden gönderin.",
		survey.ErrAlreadyResponded.Detail:     "Bu ankete zaten yanıt verdiniz.",
		survey.ErrNeedsCookies.Detail:         "Bu anketin yanıtınızı kabul edebilmesi için çerezler gerekiyor.",
		msgChallenge:                          "Güvenlik doğrulaması kabul edilmedi; yeniden deneyin.",
		msgRequired:                           "Bu alan zorunludur.",
		uploads.MsgInvalidUpload:              "Geçersiz yükleme.",
		uploads.MsgNotUploaded:                "Dosya yüklenmedi.",
		uploads.MsgMismatch:                   "Yüklenen dosya, bildirilen dosyayla eşleşmiyor.",
		msgFileTaken:                          "Bu dosya başka bir yanıta ait.",
		msgSessionResponded:                   "Bu oturumla zaten yanıt verildi; sayfayı yeniden açın.",
		msgLocation:                           "Bu anket konumunuzu gerektiriyor.",
		responding.ErrInvalidEditToken.Detail: "Geçersiz düzenleme anahtarı.",
		responding.ErrEditingDisabled.Detail:  "Bu ankette yanıtları düzenleme açık değil.",
		msgTooManyGuesses:                     "Çok fazla hatalı deneme; biraz sonra yeniden deneyin.",
		msgThrottled:                          "Çok fazla istek; biraz bekleyip yeniden deneyin.",
		msgBusy:                               "Hizmet şu anda yoğun; birazdan yeniden deneyin.",
		msgNotFound:                           "Bulunamadı.",
		errStepsInvalid.Detail:                "Form okunamadı.",
		msgBadEmail:                           "Geçerli bir e-posta adresi girin.",
		msgBadNumber:                          "Geçerli bir cep telefonu numarası girin.",
		msgAddressRefused:                     "Bu adres bu ankete yanıt veremez.",
		msgNumberRefused:                      "Bu numara bu ankete yanıt veremez.",
		msgBadCode:                            "Geçersiz kod.",
		msgCodeExpired:                        "Bu kodun süresi doldu. Yeni bir kod isteyin.",
		msgSignIn:                             "Bu ankete yanıt vermek için giriş yapın.",
	},
}

// translate is msg in the page's language, or msg when there is none.
//
// The refusals a responder can meet come from the API in English. A page
// in another language shows them in its own: the script and the plain
// form translate them through the same table. A message the table lacks
// is shown as it came, in its own direction (dir="auto"), so an English
// sentence keeps its full stop at its end on a right-to-left page.
func translate(lang, msg string) string {
	if w, ok := reworded[msg]; ok {
		msg = w
	}
	if t, ok := pageMessages[lang][msg]; ok {
		return t
	}
	// The API's refusals with numbers, by their pattern (each number %d),
	// in the responder's words with the first number in the page's digits.
	if n := number.FindString(msg); n != "" {
		if page, ok := patterns[number.ReplaceAllString(msg, "%d")]; ok {
			return strings.Replace(translate(lang, page), "%d", localDigits(zeroOf(lang), n), 1)
		}
	}
	return msg
}

// reworded are the API's refusals for developers that a responder can
// meet, by the page's words for them (which pageMessages translates).
var reworded = map[string]string{
	survey.ErrReusedKey.Detail: msgFormResent,
	survey.MsgUnknownQuestion:  msgSurveyChanged,
	survey.MsgNotShown:         msgSurveyChanged,
	links.MsgUnknownVariable:   msgSurveyChanged,
}

var number = regexp.MustCompile(`[0-9]+`)

// patterns are the refusals with numbers that a responder can meet, by
// their pattern (each number written %d), with the page's words for them.
var patterns = map[string]string{
	survey.MsgAtLeastItems: msgAtLeast,
	survey.MsgAtMostItems:  msgAtMost,
	survey.MsgTooLong:      msgTooLong,
	number.ReplaceAllString(survey.InvalidPK(1), "%d"):                                  msgSurveyChanged,
	number.ReplaceAllString(fmt.Sprintf(survey.MsgUnknownAnswerRow, "1"), "%d"):         msgSurveyChanged,
	number.ReplaceAllString(fmt.Sprintf(survey.MsgUnknownAnswerColumn, "1", "1"), "%d"): msgSurveyChanged,
}

// meets are the pages whose script can show each message of the table
// (one absent here: every page), by the features that bring it: the
// reworded and patterned refusals by the questions that can be refused
// so (a choice or a file question removed, a row, a text's length, a
// rule, a variable), the language's translations (pageMessages) by the
// feature whose requests the API refuses with them, or whose script
// shows them (sign-in, a file question, a code, a challenge, editing,
// partial responses, a time limit, no_spam, a personalised link, the
// location). A page carries only these (the page's weight: contract
// section 14): a Persian page without sign-in carries no sign-in words.
// The page's own words for a refusal (the fewest picks, a tie, a form
// sent again, a survey changed) reach the script already in the table
// under the API's words, or in data-msg-*, and the plain form's words
// (JavaScript needed, a form not read) never reach it: the table leaves
// them out (words). A refusal a change of the owner's brings to a page
// that could not meet it before (rules or sign-in added while it is
// open) is shown as the API words it.
var meets = map[string]func(surveyPage) bool{
	survey.MsgAtLeastItems: anyQuestion(func(e survey.ElementView) bool { return e.MinSelectableChoices > 0 }),
	survey.MsgAtMostItems:  anyQuestion(func(e survey.ElementView) bool { return e.AllowMultipleSelect }),
	survey.MsgTooLong:      anyQuestion(func(e survey.ElementView) bool { return e.Type == survey.TypeText }),
	survey.MsgNotShown:     anyQuestion(func(e survey.ElementView) bool { return e.Conditions != nil && len(*e.Conditions) > 0 }),
	// A removed choice, or a removed file question when its file is sent
	// (uploads/ names the element).
	number.ReplaceAllString(survey.InvalidPK(1), "%d"): anyQuestion(func(e survey.ElementView) bool {
		return len(e.Choices) > 0 || e.Type == survey.TypeFileUpload
	}),
	number.ReplaceAllString(fmt.Sprintf(survey.MsgUnknownAnswerRow, "1"), "%d"):         anyQuestion(func(e survey.ElementView) bool { return len(e.Rows) > 0 }),
	number.ReplaceAllString(fmt.Sprintf(survey.MsgUnknownAnswerColumn, "1", "1"), "%d"): anyQuestion(func(e survey.ElementView) bool { return len(e.Rows) > 0 }),
	links.MsgUnknownVariable: func(p surveyPage) bool { return len(p.Survey.Variables) > 0 },

	msgTiedRanks: words, msgAtLeast: words, msgAtMost: words, msgTooLong: words, msgFormResent: words, msgSurveyChanged: words,
	msgNeedsScript: words, errStepsInvalid.Detail: words, msgCrossSite: words,

	// Sign-in (section 18, signin.js): sending a code by email or SMS,
	// confirming it, a submission without it; one response per identity.
	msgBadEmail:       func(p surveyPage) bool { return p.Survey.Settings.ServiceAuth },
	msgAddressRefused: func(p surveyPage) bool { return p.Survey.Settings.ServiceAuth },
	msgBadNumber:      func(p surveyPage) bool { return p.Survey.Settings.PhoneNumberAuth },
	msgNumberRefused:  func(p surveyPage) bool { return p.Survey.Settings.PhoneNumberAuth },
	msgBadCode:        signsIn,
	msgCodeExpired:    signsIn,
	msgSignIn:         signsIn,
	// A code (code_auth) refused, and the code-guess guard's 429 on a
	// code and on a listed number (phone_numbers_limited).
	survey.ErrCodeRefused.Detail: func(p surveyPage) bool { return p.Survey.CodeAuth },
	msgTooManyGuesses:            func(p surveyPage) bool { return p.Survey.CodeAuth || p.Survey.Settings.PhoneNumberAuth },
	// A challenge the page solved refused (the CAPTCHA, a code's send,
	// the guard of a code survey under attack).
	msgChallenge: solvesChallenges,
	// A file question's upload and its answer (uploads.js, section 16).
	uploads.MsgInvalidUpload: hasFileQuestion,
	uploads.MsgNotUploaded:   hasFileQuestion,
	uploads.MsgMismatch:      hasFileQuestion,
	msgFileTaken:             hasFileQuestion,
	// An edit of the response (section 16, responder.js).
	responding.ErrInvalidEditToken.Detail: edits,
	responding.ErrEditingDisabled.Detail:  edits,
	// no_spam: one response per responder cookie (and per identity
	// signed in).
	survey.ErrAlreadyResponded.Detail: func(p surveyPage) bool { return p.Survey.Settings.NoSpam || signsIn(p) },
	survey.ErrNeedsCookies.Detail:     func(p surveyPage) bool { return p.Survey.Settings.NoSpam },
	msgLocation:                       func(p surveyPage) bool { return p.Survey.Settings.LocationIsActive },
	// A time limit: a file sent after it (a submission's is the page's
	// own timeup).
	responding.ErrTimeIsUp.Detail: func(p surveyPage) bool { return timed(p.Survey) },
	// A personalised link (?qs=) that does not open: only its page sends
	// one. A used one-use link is met also by a session resumed without
	// it, on any page.
	fieldMessage(responding.ErrInvalidLink, "qs"): func(p surveyPage) bool { return p.QS != "" },
	// "Continue later" (partial.js, not on a kiosk).
	msgContinueLater:     continuesLater,
	msgContinueElsewhere: continuesLater,
}

// words marks the page's own words for a refusal, which its script never
// looks up (meets).
func words(surveyPage) bool { return false }

// continuesLater reports whether the page offers "Continue later": it
// sends partials, and is no kiosk (partial.js).
func continuesLater(p surveyPage) bool { return sendsPartials(p) && !kiosk(p.Survey) }

// anyQuestion is a page with a question of which is holds.
func anyQuestion(is func(survey.ElementView) bool) func(surveyPage) bool {
	return func(p surveyPage) bool {
		for _, page := range p.Survey.Questions {
			if slices.ContainsFunc(page, is) {
				return true
			}
		}
		return false
	}
}

// messagesJSON is the page's table for its script: the language's
// translations, and in every language the reworded refusals, those with
// numbers by their pattern (the script puts the number in); of each,
// what the page can show (meets).
func messagesJSON(p surveyPage) string {
	m := map[string]string{}
	shows := func(k string) bool { met := meets[k]; return met == nil || met(p) }
	for k, v := range pageMessages[p.Lang] {
		if shows(k) {
			m[k] = v
		}
	}
	for api := range reworded {
		if shows(api) {
			m[api] = translate(p.Lang, api)
		}
	}
	for pattern, page := range patterns {
		if shows(pattern) {
			m[pattern] = translate(p.Lang, page)
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}
