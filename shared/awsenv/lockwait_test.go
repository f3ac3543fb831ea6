package awsenv

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestLockWaitsSendAgain: DynamoDB Local's lock wait timeout is sent again
// with the same body until it answers otherwise; any other 500 comes back
// to the SDK as it was, body intact, after one send.
func TestLockWaitsSendAgain(t *testing.T) {
	const lockWait = `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError",` +
		`"message":"This action timed out because it too long waiting for a lock. This request will succeed in actual DynamoDB API"}`
	for _, tc := range []struct {
		name        string
		answers     []string // one per send; "" is a 200
		wantSends   int
		wantStatus  int
		wantInReply string
	}{
		{"answered at once", []string{""}, 1, 200, "ok"},
		{"two lock waits, then answered", []string{lockWait, lockWait, ""}, 3, 200, "ok"},
		{"another 500 is the SDK's to judge", []string{`{"message":"boom"}`, ""}, 1, 500, "boom"},
		{"lock waits that never end stop at the last try", []string{lockWait, lockWait, lockWait}, 3, 500, "waiting for a lock"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sends atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(sends.Add(1)) - 1
				body, _ := io.ReadAll(r.Body)
				if string(body) != `{"TableName":"t"}` {
					t.Errorf("send %d carried %q", n+1, body)
				}
				if a := tc.answers[min(n, len(tc.answers)-1)]; a != "" {
					w.WriteHeader(500)
					io.WriteString(w, a)
					return
				}
				io.WriteString(w, "ok")
			}))
			defer srv.Close()
			c := lockWaits{next: http.DefaultClient, tries: 3}
			req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"TableName":"t"}`))
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			reply, _ := io.ReadAll(resp.Body)
			if int(sends.Load()) != tc.wantSends || resp.StatusCode != tc.wantStatus || !strings.Contains(string(reply), tc.wantInReply) {
				t.Errorf("%d sends, %d %q; want %d sends, %d containing %q", sends.Load(), resp.StatusCode, reply, tc.wantSends, tc.wantStatus, tc.wantInReply)
			}
		})
	}
}
