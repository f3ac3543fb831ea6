package responses

import (
	"testing"
	"time"
)

// TestJalaliDateTime: known Nowruz days and month ends, and the Python
// SDK's own example (1404/02/28), in Tehran's time (UTC+3:30, no DST
// since 2022).
func TestJalaliDateTime(t *testing.T) {
	for _, tc := range []struct {
		utc  time.Time
		want string
	}{
		{time.Date(2024, 3, 20, 0, 0, 0, 0, time.UTC), "1403/01/01-03:30:00"},
		{time.Date(2025, 3, 20, 20, 30, 0, 0, time.UTC), "1404/01/01-00:00:00"},
		{time.Date(2025, 3, 20, 20, 29, 59, 0, time.UTC), "1403/12/30-23:59:59"},
		{time.Date(2025, 5, 18, 7, 2, 16, 0, time.UTC), "1404/02/28-10:32:16"},
		{time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), "1405/02/11-15:30:00"},
		{time.Date(2025, 9, 22, 12, 0, 0, 0, time.UTC), "1404/06/31-15:30:00"},
		{time.Date(2025, 9, 23, 12, 0, 0, 0, time.UTC), "1404/07/01-15:30:00"},
	} {
		if got := jalaliDateTime(tc.utc); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.utc, got, tc.want)
		}
	}
}
