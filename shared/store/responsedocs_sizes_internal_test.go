package store

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
)

// The texts the formats are measured on: answers as respondents write
// them, short and long, in English, in Persian (2 bytes a letter) and
// mixed, and answers that are numbers and choice ids only. None is from
// the benchmark's responses (functions/responders' freeTextSentences), so
// that the choice of format is not tuned to one sample.

var sizeShort = []string{"Yes", "No", "Not really", "Twice a week", "Maybe next year", "Fine", "I don't know", "Too expensive",
	"بله", "خیر", "شاید", "خیلی خوب بود", "Very good", "N/A", "Once", "Friendly staff", "Slow website", "گران است", "Nothing to add", "-"}

var sizeEnglish = []string{
	"I have been a customer for about six years. The quality of the product has stayed the same, but the service around it has changed: " +
		"invoices arrive late, the phone line closes at five, and nobody answers emails on weekends.",
	"When I tried to reset my password the email never came. I checked the spam folder and asked a colleague to try as well; in the end " +
		"I had to call, and the person on the phone reset it for me in two minutes.",
	"The instructor knew the subject very well but spoke quickly, and the slides were not shared until the end of the course, so it was " +
		"difficult to follow along and take notes at the same time.",
	"We would recommend the venue to friends. The food was excellent, the garden is beautiful in spring, and the staff helped us move the " +
		"tables when the weather changed in the afternoon.",
	"Honestly, the new version of the app is slower than the old one. Opening a report takes ten seconds on my laptop, and the export " +
		"button moved to a menu that I only found by accident.",
	"Most of our patients are elderly and many do not use smartphones. A printed reminder or a phone call the day before the appointment " +
		"would reduce the number of missed visits a lot.",
	"The library should stay open later during exams. Students queue outside from seven in the morning, and by ten there are no free " +
		"desks left on any floor.",
	"I appreciated that the survey was short. Please tell us what you do with the results, because last year we answered a similar " +
		"questionnaire and nothing seemed to change afterwards.",
}

var sizePersian = []string{
	"حدود شش سال است که مشتری شما هستم. کیفیت محصول تغییری نکرده ولی خدمات " +
		"پس از فروش ضعیف‌تر شده؛ فاکتورها دیر می‌رسد و کسی به ایمیل‌ها جواب نمی‌دهد.",
	"وقتی خواستم رمز عبورم را عوض کنم ایمیل تأیید هیچ‌وقت نیامد. پوشهٔ هرزنامه " +
		"را هم نگاه کردم و در نهایت مجبور شدم تماس بگیرم تا همکارتان مشکل را حل کند.",
	"استاد به موضوع کاملاً مسلط بود اما خیلی تند صحبت می‌کرد و اسلایدها " +
		"تا پایان دوره در اختیار ما قرار نگرفت، برای همین یادداشت‌برداری سخت بود.",
	"این سالن را حتماً به دوستانم پیشنهاد می‌کنم. غذا عالی بود، باغ در " +
		"بهار خیلی زیباست و کارکنان وقتی هوا عوض شد در جابه‌جایی میزها کمک کردند.",
	"راستش نسخهٔ جدید برنامه از نسخهٔ قبلی کندتر است. باز کردن یک گزارش روی " +
		"لپ‌تاپ من ده ثانیه طول می‌کشد و دکمهٔ خروجی گرفتن به منوی دیگری رفته است.",
	"بیشتر بیماران ما سالمند هستند و خیلی‌ها گوشی هوشمند ندارند. یک پیامک یا " +
		"تماس تلفنی یک روز قبل از نوبت، تعداد نوبت‌های ازدست‌رفته را خیلی کم می‌کند.",
	"کتابخانه باید در ایام امتحانات تا دیروقت باز بماند. دانشجوها از " +
		"ساعت هفت صبح پشت در صف می‌کشند و تا ساعت ده هیچ میز خالی پیدا نمی‌شود.",
	"از کوتاه بودن پرسشنامه ممنونم. لطفاً بگویید با نتایج چه می‌کنید، چون " +
		"پارسال هم به پرسشنامهٔ مشابهی جواب دادیم و به نظر نمی‌رسید چیزی تغییر کند.",
}

// sizeDoc is one response of n answers from pool, from its i-th on, with
// element ids as a survey gives them.
func sizeDoc(pool []string, n, i int) string {
	a := map[string]string{}
	for k := range n {
		a[strconv.Itoa(4000+16*k)] = pool[(i+k*3)%len(pool)]
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// sizeChoices is a response of 12 answers that are choice ids, scales and
// a matrix's rows.
func sizeChoices(i int) string {
	a := map[string]any{}
	base := 4000 + 977*i
	for k := range 12 {
		id := strconv.Itoa(base + 7*k)
		switch c := (i + k) % 5; k % 4 {
		case 0:
			a[id] = []int{base + 100 + c}
		case 1:
			a[id] = 1 + (i*k)%10
		case 2:
			a[id] = map[string]int{strconv.Itoa(base + 200): base + 300 + c, strconv.Itoa(base + 201): base + 301, strconv.Itoa(base + 202): base + 300 + k%3}
		default:
			a[id] = []int{base + 400 + c, base + 410 + (c*3)%5}
		}
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// sizeCorpora are 8 responses of each kind, with their variables.
func sizeCorpora() []struct {
	name string
	docs [][2]string
} {
	mixed := append(append([]string{}, sizeEnglish[:4]...), sizePersian[4:]...)
	kinds := []struct {
		name string
		doc  func(i int) string
		vars string
	}{
		{"12 short answers", func(i int) string { return sizeDoc(sizeShort, 12, i) }, `{}`},
		{"12 choices and scales", sizeChoices, `{}`},
		{"3 English paragraphs", func(i int) string { return sizeDoc(sizeEnglish, 3, i) }, `{}`},
		{"3 Persian paragraphs", func(i int) string { return sizeDoc(sizePersian, 3, i) }, `{}`},
		{"6 English paragraphs", func(i int) string { return sizeDoc(sizeEnglish, 6, i) }, `{}`},
		{"6 Persian paragraphs", func(i int) string { return sizeDoc(sizePersian, 6, i) }, `{}`},
		{"6 mixed, 5 variables", func(i int) string { return sizeDoc(mixed, 6, i) },
			`{"customer_id":"C-209311","utm_source":"newsletter","utm_campaign":"autumn-2026","plan":"business","city":"Tehran"}`},
	}
	var out []struct {
		name string
		docs [][2]string
	}
	for _, k := range kinds {
		var docs [][2]string
		for i := range 8 {
			docs = append(docs, [2]string{k.doc(i), k.vars})
		}
		out = append(out, struct {
			name string
			docs [][2]string
		}{k.name, docs})
	}
	return out
}

// TestResponseDocsSizes: on every kind of response, what setDocs keeps is
// never larger than DEFLATE alone (format 1, all there was before brotli),
// and on text brotli is what it keeps, at least a tenth smaller. The
// sizes (bytes of "z", name included, mean and range) are logged:
// docs/scale.md quotes them.
func TestResponseDocsSizes(t *testing.T) {
	t.Parallel()
	for _, c := range sizeCorpora() {
		var plain, deflated, packed []int
		brotlis := 0
		for _, d := range c.docs {
			z, f := packDocs(d[0], d[1]), deflateDocs(d[0], d[1])
			if z == nil || len(z) > len(f) {
				t.Errorf("%s: packed in %d bytes, DEFLATE alone in %d", c.name, len(z), len(f))
				continue
			}
			if z[0] == docsBrotli {
				brotlis++
			}
			plain = append(plain, len("answers")+len(d[0])+len("variables")+len(d[1]))
			deflated, packed = append(deflated, len(attrDocs)+len(f)), append(packed, len(attrDocs)+len(z))
		}
		t.Logf("%-22s plain %s, DEFLATE %s, kept %s (%d of %d in brotli)", c.name, sizeRange(plain), sizeRange(deflated), sizeRange(packed), brotlis, len(c.docs))
		if c.name != "12 choices and scales" && (brotlis != len(c.docs) || 10*sum(packed) > 9*sum(deflated)) {
			t.Errorf("%s: %d of %d in brotli, %d bytes where DEFLATE took %d: want all, a tenth fewer", c.name, brotlis, len(c.docs), sum(packed), sum(deflated))
		}
	}
}

func sum(ns []int) int {
	s := 0
	for _, n := range ns {
		s += n
	}
	return s
}

// sizeRange is "mean (least-most)".
func sizeRange(ns []int) string {
	return fmt.Sprintf("%4d (%4d-%4d)", sum(ns)/max(len(ns), 1), minOf(ns), maxOf(ns))
}

func minOf(ns []int) int {
	m := ns[0]
	for _, n := range ns {
		m = min(m, n)
	}
	return m
}

func maxOf(ns []int) int {
	m := ns[0]
	for _, n := range ns {
		m = max(m, n)
	}
	return m
}

// BenchmarkPackDocs: the CPU of each format on a response of 6 mixed
// paragraphs and 5 variables (1.5 KB of JSON, one of sizeCorpora's):
// DEFLATE and brotli alone, packDocs (both, the smaller kept), and the
// readers of each.
func BenchmarkPackDocs(b *testing.B) {
	var d [2]string
	for _, c := range sizeCorpora() {
		if c.name == "6 mixed, 5 variables" {
			d = c.docs[0]
		}
	}
	f, br := deflateDocs(d[0], d[1]), brotliDocs(d[0], d[1])
	for _, c := range []struct {
		name string
		run  func()
	}{
		{"deflate", func() { deflateDocs(d[0], d[1]) }},
		{"brotli", func() { brotliDocs(d[0], d[1]) }},
		{"packDocs", func() { packDocs(d[0], d[1]) }},
		{"unpack deflate", func() { _, _, _ = unpackDocs(f) }},
		{"unpack brotli", func() { _, _, _ = unpackDocs(br) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(d[0]) + len(d[1])))
			for b.Loop() {
				c.run()
			}
		})
	}
}
