package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"surveyservice/shared/api"
)

// TestClientClosedIsNot500: a request its client abandoned (its context
// canceled, so its store calls fail with context.Canceled) was logged as a
// 500 with an error line. It is the client's doing: the access log says
// 499 and nothing is logged as an error; a handler's own failure with the
// client still there stays a 500. (Not parallel: it swaps slog's default.)
func TestClientClosedIsNot500(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, nil)))
	defer slog.SetDefault(old)
	h := api.Observe(api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return fmt.Errorf("store: read the survey: %w", context.Cause(r.Context()))
	}))
	for _, tc := range []struct {
		name   string
		cancel bool
		status int
		level  string
	}{
		{"client gone", true, api.StatusClientClosedRequest, "INFO"},
		{"client there", false, http.StatusInternalServerError, "ERROR"},
	} {
		buf.Reset()
		ctx, cancel := context.WithCancel(context.Background())
		if tc.cancel {
			cancel()
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/x/", nil).WithContext(ctx))
		cancel()
		var access map[string]any
		worst := "INFO"
		sc := bufio.NewScanner(&buf)
		for sc.Scan() {
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("%s: log line %q: %v", tc.name, sc.Text(), err)
			}
			if line["level"] == "ERROR" {
				worst = "ERROR"
			}
			if line["msg"] == "request" {
				access = line
			}
		}
		if access == nil || access["status"] != float64(tc.status) || worst != tc.level {
			t.Errorf("%s: access log %v, worst level %s; want status %d, %s", tc.name, access, worst, tc.status, tc.level)
		}
	}
}
