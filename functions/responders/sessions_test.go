package responders_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"surveyservice/shared/links"
	"surveyservice/shared/responding"
	"surveyservice/shared/survey"
)

func TestSessions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	coded, codedID := f.survey(t, shared, "alpha")
	open, openID := f.survey(t, nil)
	if _, err := f.st.CreateVariables(ctx, f.aid, openID, nil, 0, []survey.Variable{{Name: "city", Type: 1}}); err != nil {
		t.Fatal(err)
	}
	tokens, err := f.sealer.Seal(ctx, openID, []links.Payload{
		{Values: []links.Value{{Name: "city", Kind: links.KindString, Str: "Rasht"}}},
		{Unique: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := f.sealer.Seal(ctx, codedID, []links.Payload{{}})
	if err != nil {
		t.Fatal(err)
	}
	f.session(t, open, nil) // warm the slug and the data key
	tests := []struct {
		name string
		slug string
		body string
		code int
		want string // the whole body, or "" to check a 201's shape
	}{
		{"no code under code_auth", coded, `{}`, 403, refusedBody},
		{"unknown code", coded, `{"code":"beta"}`, 403, refusedBody},
		{"blank code", coded, `{"code":"  "}`, 403, refusedBody},
		{"code null", coded, `{"code":null}`, 403, refusedBody},
		{"code a number", coded, `{"code":5}`, 400, `{"code":["Not a valid string."]}`},
		{"code", coded, `{"code":"alpha"}`, 201, ""},
		{"code with spaces", coded, `{"code":" alpha "}`, 201, ""},
		{"no code needed", open, `{}`, 201, ""},
		{"a code where none is needed", open, `{"code":"whatever"}`, 201, ""},
		{"empty body", open, ``, 201, ""},
		{"link", open, `{"qs":"` + tokens[0] + `"}`, 201, `{"city":"Rasht"}`},
		{"one-use link", open, `{"qs":"` + tokens[1] + `"}`, 201, `{}`},
		{"bad link", open, `{"qs":"abc"}`, 400, `{"qs":["Invalid link."]}`},
		{"blank link", open, `{"qs":""}`, 400, `{"qs":["Invalid link."]}`},
		{"another survey's link", open, `{"qs":"` + foreign[0] + `"}`, 400, `{"qs":["Invalid link."]}`},
		{"qs a list", open, `{"qs":[]}`, 400, `{"qs":["Not a valid string."]}`},
		{"unknown survey", survey.NewCode(survey.SlugLength), `{}`, 404, notFound},
		{"body a list", open, `[]`, 400, `{"non_field_errors":["Invalid data. Expected a dictionary, but got list."]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := send(t, f.h, "POST", sessionsPath(tc.slug), tc.body, js...)
			if r.code != tc.code {
				t.Fatalf("got %d %s, want %d", r.code, r.body, tc.code)
			}
			// A wrong code counts a failed check (two UpdateItems, see
			// store.CodeGuard); nothing else is written.
			if tc.code != 403 && r.ops["DynamoDB.UpdateItem"] > 0 || r.ops["DynamoDB.PutItem"]+r.ops["DynamoDB.TransactWriteItems"] > 0 || r.ops["KMS.Decrypt"]+r.ops["KMS.GenerateDataKey"] > 0 {
				t.Errorf("a session wrote or called KMS: %v", r.ops)
			}
			if tc.code != 201 {
				if !jsonSame(r.body, tc.want) {
					t.Errorf("got %s, want %s", r.body, tc.want)
				}
				return
			}
			if r.calls > 3 {
				t.Errorf("a session made %d DynamoDB calls %v, want at most 3 (survey and settings, code, link)", r.calls, r.ops)
			}
			var s struct {
				Session   string          `json:"session"`
				StartedAt string          `json:"started_at"`
				Values    json.RawMessage `json:"values"`
			}
			if err := json.Unmarshal([]byte(r.body), &s); err != nil || s.Session == "" {
				t.Fatalf("201 body %s: %v", r.body, err)
			}
			if at, err := time.Parse(survey.TimestampLayout, s.StartedAt); err != nil || time.Since(at) > time.Minute {
				t.Errorf("started_at %q: %v", s.StartedAt, err)
			}
			if want := tc.want; want != "" && !jsonSame(string(s.Values), want) {
				t.Errorf("values %s, want %s", s.Values, want)
			}
			if strings.Contains(r.body, "alpha") {
				t.Errorf("the session answer shows the code: %s", r.body)
			}
		})
	}
	// A session is bound to its survey: the link-started one records a
	// response with the link's values, not on another survey.
	s := f.session(t, open, map[string]any{"qs": tokens[0], "code": "whatever"})
	f.respond(t, coded, s, nil).is(t, 400, badSession)
	r := f.respond(t, open, s, nil)
	got := f.response(t, openID, r.submitted(t).ID)
	if got.Variables != `{"city":"Rasht"}` || got.Code != "" {
		t.Errorf("stored variables %s code %q: want the link's values and no code (code_auth is off)", got.Variables, got.Code)
	}
	f.wantStored(t, "coded", codedID, 0)
}

// sessionCases are valid sessions; the fuzz target starts from their
// encodings.
var sessionCases = []responding.Session{
	{StartedAt: time.UnixMicro(1)},
	{StartedAt: time.Date(2026, 11, 22, 10, 30, 0, 123456000, time.UTC)},
	{StartedAt: time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC), Code: "کد-۱۲"},
	{StartedAt: time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC), Code: strings.Repeat("c", responding.MaxCode)},
	{StartedAt: time.UnixMicro(1 << 52), Link: &responding.SessionLink{ID: [12]byte{1, 2, 3}}},
	{StartedAt: time.UnixMicro(1 << 52), Email: "a@example.com"},
	{StartedAt: time.UnixMicro(1 << 52), Phone: "+989121234567"},
	{StartedAt: time.UnixMicro(1 << 52), Language: "en"},
	{StartedAt: time.UnixMicro(3), Code: "c", Phone: "+989121234567", Language: "fa", Link: &responding.SessionLink{ID: [12]byte{5}}},
	{StartedAt: time.UnixMicro(7), Code: "c", Email: strings.Repeat("e", responding.MaxEmail), Phone: "+4915112345678", Responder: [16]byte{9},
		Link: &responding.SessionLink{ID: [12]byte{4}}},
	{StartedAt: time.UnixMicro(1 << 52), Code: "x", Link: &responding.SessionLink{ID: [12]byte{0xff}, Values: links.Payload{
		Unique: true, Values: []links.Value{{Name: "city", Kind: links.KindString, Str: "Yazd"}, {Name: "n", Kind: links.KindInt, Int: -5}},
	}}},
}

func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	for i, s := range sessionCases {
		enc := s.Encode()
		got, err := responding.DecodeSession(enc)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !got.StartedAt.Equal(s.StartedAt) || got.Code != s.Code || got.Email != s.Email || got.Phone != s.Phone ||
			got.Responder != s.Responder || (got.Link == nil) != (s.Link == nil) {
			t.Fatalf("case %d: %+v, want %+v", i, got, s)
		}
		if again := got.Encode(); !bytes.Equal(again, enc) {
			t.Fatalf("case %d: re-encoded % x, want % x", i, again, enc)
		}
		for n := range len(enc) {
			if _, err := responding.DecodeSession(enc[:n]); err == nil {
				t.Fatalf("case %d: a prefix of %d bytes decoded", i, n)
			}
		}
	}
}

// FuzzDecodeSession: DecodeSession never panics, and what it accepts is
// canonical: it re-encodes to exactly its input.
func FuzzDecodeSession(f *testing.F) {
	for _, s := range sessionCases {
		f.Add(s.Encode())
	}
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0})
	f.Add([]byte{1, 3, 2, 1, 'x'})
	f.Add([]byte{1, 24, 2, 1, 'e', 1, 'p'})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := responding.DecodeSession(b)
		if err != nil {
			return
		}
		if s.StartedAt.UnixMicro() <= 0 || len(s.Code) > responding.MaxCode || len(s.Email) > responding.MaxEmail || len(s.Phone) > 16 {
			t.Fatalf("DecodeSession(% x) = %+v", b, s)
		}
		if enc := s.Encode(); !bytes.Equal(enc, b) {
			t.Fatalf("DecodeSession(% x) = %+v, which encodes as % x: not canonical", b, s, enc)
		}
	})
}
