package webhook_test

import (
	"testing"
	"time"

	"surveyservice/shared/webhook"
)

func TestJobRoundTrip(t *testing.T) {
	j := webhook.Job{SurveyID: 3, WebhookID: 7, ResponseID: 99, Delivery: "1763900000123456-99", Attempt: 4}
	got, err := webhook.DecodeJob(j.Encode())
	if err != nil || got != j {
		t.Fatalf("DecodeJob(Encode) = %+v, %v", got, err)
	}
	for _, bad := range []string{"", "{}", "[]", `{"survey_id":1,"webhook_id":1,"response_id":1}`,
		`{"survey_id":1,"webhook_id":1,"response_id":1,"delivery":"x","extra":1}`,
		`{"survey_id":-1,"webhook_id":1,"response_id":1,"delivery":"x"}`,
		`{"survey_id":1,"webhook_id":1,"response_id":1,"delivery":"x","attempt":-1}`,
		`{"survey_id":1,"webhook_id":1,"response_id":1,"delivery":"x","not_before":5}`,
		`{"survey_id":1,"webhook_id":1,"response_id":1,"delivery":"x"} {}`} {
		if _, err := webhook.DecodeJob(bad); err == nil {
			t.Errorf("DecodeJob(%s) accepted", bad)
		}
	}
}

func FuzzDecodeJob(f *testing.F) {
	f.Add(webhook.Job{SurveyID: 3, WebhookID: 7, ResponseID: 99, Delivery: "1-99"}.Encode())
	f.Add(`{"survey_id":1e3}`)
	f.Fuzz(func(t *testing.T, body string) {
		j, err := webhook.DecodeJob(body)
		if err != nil {
			return
		}
		again, err := webhook.DecodeJob(j.Encode())
		if err != nil || again != j {
			t.Fatalf("a decoded job does not round-trip: %+v %v", again, err)
		}
	})
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"https://hooks.example.com/in", "http://127.0.0.1:1/", "https://[::1]/", "https://a@b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := webhook.Guard{AllowLoopback: true}.ParseURL(raw)
		if err != nil {
			return
		}
		if u.Scheme != "https" && u.Scheme != "http" || u.Hostname() == "" || u.User != nil {
			t.Fatalf("ParseURL(%q) accepted %+v", raw, u)
		}
	})
}

func TestSchedule(t *testing.T) {
	var total time.Duration
	for i := 1; ; i++ {
		d, ok := webhook.NextDelay(webhook.DefaultDelays, i)
		if !ok {
			if i != webhook.MaxAttempts(webhook.DefaultDelays) {
				t.Fatalf("the schedule ends after %d attempts, MaxAttempts says %d", i, webhook.MaxAttempts(webhook.DefaultDelays))
			}
			break
		}
		total += d
	}
	if total < 24*time.Hour {
		t.Fatalf("retries span %v, want at least 24 h", total)
	}
	if d, err := webhook.ParseDelays("0s, 1s,2m"); err != nil || len(d) != 3 || d[2] != 2*time.Minute {
		t.Fatalf("ParseDelays = %v, %v", d, err)
	}
	if _, err := webhook.ParseDelays("1s,soon"); err == nil {
		t.Fatal("ParseDelays accepted soon")
	}
}
