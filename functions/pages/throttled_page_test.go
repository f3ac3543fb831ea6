package pages_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"surveyservice/functions/pages"
	"surveyservice/internal/testenv"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/store"
)

// TestThrottledPage: a throttled page navigation answers the survey's
// page in its language, not JSON, with Retry-After; a throttled request
// is in the request log with its request id, route and status (finding
// 11: 361 throttled, 7 logged).
func TestThrottledPage(t *testing.T) {
	f := newFixture(t, 2)
	fa := int64(1)
	f.set(t, store.SettingsUpdate{Language: &fa})
	var logs syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	rates := ratelimit.Service
	rates.Client.Limit = 2
	h := pages.Limited(pages.New(pages.Deps{Store: f.st, Sealer: testenv.Sealer(t), Now: time.Now}), f.st, rates, time.Now)
	var last *httptest.ResponseRecorder
	for range 3 {
		req := httptest.NewRequest("GET", "/s/"+f.sv.URLSlug+"/", nil)
		req.Header.Set("Accept", "text/html,application/xhtml+xml")
		req.Header.Set("Sec-Fetch-Mode", "navigate")
		req.RemoteAddr = "198.51.100.9:1000"
		last = httptest.NewRecorder()
		h.ServeHTTP(last, req)
	}
	body := last.Body.String()
	if last.Code != http.StatusTooManyRequests || !strings.HasPrefix(last.Header().Get("Content-Type"), "text/html") ||
		last.Header().Get("Retry-After") == "" || !strings.Contains(body, `lang="fa" dir="rtl"`) || strings.Contains(body, "throttled") {
		t.Errorf("a throttled page: %d %v %.600s", last.Code, last.Header(), body)
	}
	id := last.Header().Get("X-Request-Id")
	if id == "" || !strings.Contains(logs.String(), `"request_id":"`+id+`"`) ||
		!strings.Contains(logs.String(), `"route":"/s/{url_slug}/","status":429`) {
		t.Errorf("the throttled request %q is not in the request log:\n%s", id, logs.String())
	}
}

// syncBuffer is a log destination that handlers may write concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
