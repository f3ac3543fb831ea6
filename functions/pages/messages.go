package pages

import (
	"encoding/json"

	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

// Messages of the pages themselves, in English; their translations are
// in pageMessages.
const (
	msgSomethingWrong = "Something went wrong."
	msgNetwork        = "The network failed; try again."
	msgTiedRanks      = "Give each choice a different rank."
)

var pageMessages = map[string]map[string]string{
	"fa": {
		survey.ErrCodeRefused.Detail:  "کد شما پذیرفته نشد.",
		survey.ErrSurveyClosed.Detail: "این پرسش‌نامه بسته است.",
		survey.ErrLinkUsed.Detail:     "از این پیوند پیش‌تر استفاده شده است.",
		responding.ErrTimeIsUp.Detail: "زمان پاسخ‌دهی به پایان رسیده است.",
		"Invalid link.":               "پیوند نامعتبر است.",
		"Invalid session.":            "نشست نامعتبر است؛ صفحه را دوباره باز کنید.",
		survey.MsgAnswerRequired:      "پاسخ به این پرسش الزامی است.",
		msgSomethingWrong:             "مشکلی پیش آمد.",
		msgNetwork:                    "اتصال برقرار نشد؛ دوباره تلاش کنید.",
		msgTiedRanks:                  "به هر گزینه رتبه‌ای متفاوت بدهید.",
	},
	"ar": {
		survey.ErrCodeRefused.Detail:  "لم يُقبل رمزك.",
		survey.ErrSurveyClosed.Detail: "هذا الاستبيان مغلق.",
		survey.ErrLinkUsed.Detail:     "تم استخدام هذا الرابط من قبل.",
		responding.ErrTimeIsUp.Detail: "انتهى وقت الإجابة.",
		"Invalid link.":               "الرابط غير صالح.",
		"Invalid session.":            "الجلسة غير صالحة؛ أعد فتح الصفحة.",
		survey.MsgAnswerRequired:      "هذا السؤال يتطلب إجابة.",
		msgSomethingWrong:             "حدث خطأ ما.",
		msgNetwork:                    "فشل الاتصال؛ حاول مرة أخرى.",
		msgTiedRanks:                  "أعطِ كل خيار ترتيبًا مختلفًا.",
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
	if t, ok := pageMessages[lang][msg]; ok {
		return t
	}
	return msg
}

// messagesJSON is the page's table for its script ({} for English).
func messagesJSON(lang string) string {
	m := pageMessages[lang]
	if m == nil {
		m = map[string]string{}
	}
	b, _ := json.Marshal(m)
	return string(b)
}
