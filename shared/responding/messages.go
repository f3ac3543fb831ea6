package responding

import (
	"fmt"

	"surveyservice/shared/sending"
)

// codeTexts are a code's message in each language a survey may be in
// (contract section 18): the subject of an email and the body, both
// naming the survey; %[1]s is the survey's name, %[2]s the code. An SMS
// is the body alone, kept short. English stands in for any other
// language.
var codeTexts = map[string]struct{ subject, body string }{
	"en": {"Your code for “%[1]s”", "Your code to respond to “%[1]s” is %[2]s. It expires in 10 minutes. If you did not ask for it, ignore this message."},
	"fa": {"کد شما برای «%[1]s»", "کد شما برای پاسخ به «%[1]s»: %[2]s\n" +
		"این کد تا ۱۰ دقیقه معتبر است. اگر آن را درخواست نکرده‌اید، این پیام را نادیده بگیرید."},
	"ar": {"رمزك لـ«%[1]s»", "رمزك للرد على «%[1]s» هو %[2]s. تنتهي صلاحيته خلال 10 دقائق. إذا لم تطلبه، فتجاهل هذه الرسالة."},
	"tr": {"“%[1]s” için kodunuz", "“%[1]s” anketini yanıtlamak için kodunuz: %[2]s. 10 dakika geçerlidir. Siz istemediyseniz bu iletiyi dikkate almayın."},
}

// CodeMessage is the message that carries a code to an address, in lang
// (a language code: the responder's session's, else the survey's),
// naming the survey.
func CodeMessage(channel, to, lang, surveyName, code string) sending.Message {
	t, ok := codeTexts[lang]
	if !ok {
		t = codeTexts["en"]
	}
	m := sending.Message{Channel: channel, To: to, Body: fmt.Sprintf(t.body, surveyName, code)}
	if channel == ChannelEmail {
		m.Subject = fmt.Sprintf(t.subject, surveyName)
	}
	return m
}
