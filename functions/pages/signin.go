package pages

// The sign-in step of contract section 18: after the welcome page (and the
// code page, whose code starts the session the sends need), a page asks
// for the email address and one for the mobile number, each then for the
// one-time code it was sent; signin.js sends (each send with a freshly
// solved challenge) and confirms through the public API, and the session
// the confirmation answers carries on.

// signInTexts are the sign-in step's words, by language.
type signInTexts struct {
	Email, Phone, Code, Send, Confirm, Resend string
	// Sent announces a code sent; %s is the address, set apart (bdi).
	Sent string
	// NeedsJS is what the step says without the page's script: the proof
	// of work of every send runs in the browser.
	NeedsJS string
}

var signInTextsByLang = map[string]signInTexts{
	"en": {Email: "Your email address", Phone: "Your mobile number", Code: "The 6-digit code we sent you",
		Send: "Send code", Confirm: "Confirm", Resend: "Send a new code",
		Sent:    "We sent a code to %s. It is valid for 10 minutes.",
		NeedsJS: "Sending a code needs JavaScript. Turn JavaScript on in your browser to respond to this survey."},
	"fa": {Email: "نشانی ایمیل شما", Phone: "شمارهٔ موبایل شما", Code: "کد ۶ رقمی که برایتان فرستادیم",
		Send: "ارسال کد", Confirm: "تأیید", Resend: "ارسال کد تازه",
		Sent:    "کدی به %s فرستادیم. این کد تا ۱۰ دقیقه معتبر است.",
		NeedsJS: "ارسال کد به جاوااسکریپت نیاز دارد. برای پاسخ به این پرسش‌نامه، جاوااسکریپت مرورگر خود را روشن کنید."},
	"ar": {Email: "عنوان بريدك الإلكتروني", Phone: "رقم هاتفك المحمول", Code: "الرمز المكوّن من ٦ أرقام الذي أرسلناه إليك",
		Send: "إرسال الرمز", Confirm: "تأكيد", Resend: "إرسال رمز جديد",
		Sent:    "أرسلنا رمزًا إلى %s. الرمز صالح لمدة ١٠ دقائق.",
		NeedsJS: "يتطلب إرسال الرمز جافاسكريبت. فعّل جافاسكريبت في متصفحك للإجابة عن هذا الاستبيان."},
	"tr": {Email: "E-posta adresiniz", Phone: "Cep telefonu numaranız", Code: "Size gönderdiğimiz 6 haneli kod",
		Send: "Kodu gönder", Confirm: "Onayla", Resend: "Yeni kod gönder",
		Sent:    "%s adresine bir kod gönderdik. Kod 10 dakika geçerlidir.",
		NeedsJS: "Kod göndermek için JavaScript gerekir. Bu ankete yanıt vermek için tarayıcınızda JavaScript'i açın."},
}

func signInTextsFor(lang string) signInTexts {
	if t, ok := signInTextsByLang[lang]; ok {
		return t
	}
	return signInTextsByLang["en"]
}

// signsIn reports whether the survey's page has the sign-in step: only
// then does it load signin.js.
func signsIn(s surveyPage) bool {
	return s.Survey.Settings.ServiceAuth || s.Survey.Settings.PhoneNumberAuth
}

// authDescription writes the owner's auth_description, above the code
// field and each sign-in field (contract section 18): in the page's
// direction (the survey's language), or, on a page in another language,
// in its own (it has no translation), with its line breaks (signin.css).
func (d *doc) authDescription(p surveyPage) {
	if a := p.Survey.Settings.AuthDescription; a != nil && *a != "" {
		d.w("<p class=\"auth-description\">%s</p>\n", ltext(*a))
	}
}

// accessStyles reports whether the page loads signin.css: it signs in, or
// its code page shows an auth_description.
func accessStyles(p surveyPage) bool {
	a := p.Survey.Settings.AuthDescription
	return signsIn(p) || p.Survey.CodeAuth && a != nil && *a != ""
}

// signIn writes the sign-in pages, email then phone, each with the
// owner's auth_description above it.
func (d *doc) signIn(p surveyPage) {
	set, t := p.Survey.Settings, signInTextsFor(p.Lang)
	for _, m := range []struct {
		on                          bool
		channel, id, label, typ, ac string
	}{
		{set.ServiceAuth, "email", "signin-email", t.Email, "email", "email"},
		{set.PhoneNumberAuth, "sms", "signin-phone", t.Phone, "tel", "tel"},
	} {
		if !m.on {
			continue
		}
		d.w(`<section class="page signin" data-page="%s" data-channel="%s" data-enter-text="%s" data-confirm-text="%s" data-sent="%s">
`, text(m.id), text(m.channel), text(t.Send), text(t.Confirm), text(t.Sent))
		d.authDescription(p)
		// No name attributes: the plain form never sends these fields.
		d.w(`<noscript><p class="needs-js">%s</p></noscript>
<div class="signin-send">
<label for="%s">%s</label>
<input id="%s" type="%s" autocomplete="%s" dir="ltr" spellcheck="false" required>
</div>
<div class="signin-confirm" hidden>
<p class="signin-sent" role="status"></p>
<label for="%s-code">%s</label>
<input id="%s-code" type="text" inputmode="numeric" autocomplete="one-time-code" dir="ltr" required>
<button type="button" class="signin-resend">%s</button>
</div>
</section>
`, text(t.NeedsJS), text(m.id), text(m.label), text(m.id), text(m.typ), text(m.ac),
			text(m.id), text(t.Code), text(m.id), text(t.Resend))
	}
}
