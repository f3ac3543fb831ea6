package survey

import (
	"fmt"
	"time"
)

// Timers (contract section 15): responding_duration_type 0 or 1 times the
// whole survey with the settings' duration; 2 times each question with its
// own responding_duration.
const (
	DurationWhole       = 1
	DurationPerQuestion = 2
)

// DurationSeconds is a duration HH:MM:SS in seconds, 0 for none.
func DurationSeconds(d *string) int64 {
	if d == nil || !ValidDuration(*d) {
		return 0
	}
	s := *d
	return int64((int(s[0]-'0')*10+int(s[1]-'0'))*3600 + (int(s[3]-'0')*10+int(s[4]-'0'))*60 + int(s[6]-'0')*10 + int(s[7]-'0'))
}

// FormatDuration writes seconds as HH:MM:SS, hours capped at 99:59:59.
func FormatDuration(sec int64) string {
	if sec > 99*3600+59*60+59 {
		sec = 99*3600 + 59*60 + 59
	}
	return fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
}

// QuestionsDeadline is when a per-question timed response started at
// started must be in: the sum of the shown questions' durations, plus
// ResponseGrace; ok is false when no shown question has a duration.
func QuestionsDeadline(started time.Time, questions []Element, shown map[int64]bool) (time.Time, bool) {
	var sum int64
	for i := range questions {
		if shown == nil || shown[questions[i].ID] {
			sum += DurationSeconds(questions[i].RespondingDuration)
		}
	}
	if sum == 0 {
		return time.Time{}, false
	}
	return started.Add(time.Duration(sum)*time.Second + ResponseGrace), true
}

// SetTiming records e's own responding duration in the layout (seconds),
// so that the settings' questions_responding_duration is read with the
// layout alone.
func (l *Layout) SetTiming(e Element) {
	sec := DurationSeconds(e.RespondingDuration)
	if sec == 0 || e.Type.List() != ListQuestions {
		delete(l.Seconds, e.ID)
		return
	}
	if l.Seconds == nil {
		l.Seconds = map[int64]int64{}
	}
	l.Seconds[e.ID] = sec
}

// QuestionsRespondingDuration is the settings' read-only
// questions_responding_duration (contract section 15): the sum of the
// questions' own durations as HH:MM:SS (elements without one add
// nothing), 00:00:00 for none. It is the one place that computes it:
// Settings.WithLayout puts it in the settings and their summary.
func (l Layout) QuestionsRespondingDuration() string {
	var sum int64
	for _, s := range l.Seconds {
		sum += s
	}
	return FormatDuration(sum)
}

// WithLayout is the settings as every view shows them: with the
// read-only questions_responding_duration computed from the layout's
// durations, whatever is stored.
func (s Settings) WithLayout(l Layout) Settings {
	d := l.QuestionsRespondingDuration()
	s.QuestionsRespondingDuration = &d
	return s
}
