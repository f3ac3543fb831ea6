package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"surveyservice/internal/testenv"
)

// TestRunLimitsOneClient is `make run` (run(), the code path main takes)
// with RATE_LIMITS sizing the client's limit: one client (127.0.0.1) over
// it answers 429 with Retry-After (DRF's throttled detail; on a page, a
// page), on the responders function and on the pages function
// (each counts its own), while assets and the owner's API are not limited.
func TestRunLimitsOneClient(t *testing.T) {
	const limit = 5
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1",
		"PORT": freePort(t), "HOME": os.Getenv("HOME"), "RATE_LIMITS": "5",
	}
	// A table of its own: no other run's counts of 127.0.0.1.
	env["TABLE_NAME"] = "local-run-limits-" + env["PORT"]
	_, base := startLocal(t, env)
	key := accountOn(t, env)
	for _, path := range []string{"/api/public/surveys/no-such-survey/", "/s/no-such-survey/"} {
		// Within one fixed minute window 5 pass and the 6th is refused;
		// 2*limit+2 requests cannot all pass even if a window ends among
		// them.
		throttled := 0
		for i := 0; i < 2*limit+2 && throttled == 0; i++ {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			switch resp.StatusCode {
			case http.StatusNotFound:
			case http.StatusTooManyRequests:
				throttled++
				page := strings.HasPrefix(path, "/s/")
				switch d, _ := body["detail"].(string); {
				case page && (!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(raw), "Too many requests; wait a moment and try again.")):
					// A page's 429 is a page.
					t.Errorf("%s: 429 %q %.300s", path, resp.Header.Get("Content-Type"), raw)
				case !page && !strings.HasPrefix(d, "Request was throttled."):
					t.Errorf("%s: 429 body %v", path, body)
				}
				if resp.Header.Get("Retry-After") == "" {
					t.Errorf("%s: 429 without Retry-After", path)
				}
				if i < limit {
					t.Errorf("%s: request %d of a fresh client refused (limit %d)", path, i+1, limit)
				}
			default:
				t.Fatalf("%s: request %d = %d %v", path, i+1, resp.StatusCode, body)
			}
		}
		if throttled == 0 {
			t.Errorf("%s: %d requests of one client within its limit of %d a minute, none refused", path, 2*limit+2, limit)
		}
	}
	// Not limited, for the same client now over its limit: the owner's
	// API (an API key) and the pages' assets.
	for range 2 * limit {
		if code := getJSON(t, base+"/api/whoami/", key, nil); code != 200 {
			t.Fatalf("whoami = %d", code)
		}
		if code := getJSON(t, base+"/assets/no-such-asset.css", "", nil); code != http.StatusNotFound {
			t.Fatalf("an asset over the limit = %d, want 404", code)
		}
	}
}

// TestStartRunChoosesAnotherPort: a port freePort chose and another socket
// took before run bound it (as a loaded make test's connections do) is
// chosen again, not a failed test ("address already in use", seen once
// in TestRunLimitsOneClient at load 10).
func TestStartRunChoosesAnotherPort(t *testing.T) {
	port := freePort(t)
	env := map[string]string{
		"AWS_ENDPOINT_URL": testenv.Endpoint(t), "AWS_REGION": "us-east-1",
		"PORT": port, "HOME": os.Getenv("HOME"), "TABLE_NAME": "local-run-port-" + port,
	}
	taken, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	_, base := startLocal(t, env)
	if env["PORT"] == port || base != "http://127.0.0.1:"+env["PORT"] {
		t.Fatalf("listening on %s with PORT %s; %s was taken", base, env["PORT"], port)
	}
}
