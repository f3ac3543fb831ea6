package elements_test

import (
	"testing"

	"surveyservice/shared/survey"
)

// TestRatingStepsAndIcon: a rating takes `steps` (rating_max under the
// name Porsline's clients send: mindcloud-inc/universal-api-reference,
// apis/p/porsline/native-api/actions/update-question.md, and read:
// omidrah/porsline's Question.Steps, JsonModel/Question.cs:106-110) and
// `icon_type`, stores them and answers them on every read (contract
// section 21); before, both were a 200 that changed nothing.
func TestRatingStepsAndIcon(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sid := f.newSurvey(t)
	el := f.create(t, sid, `{"title":"R","type":7,"steps":7,"icon_type":2}`)
	eid := idOf(t, el)
	for _, got := range []map[string]any{el, f.get(t, sid, eid)} {
		if got["steps"] != 7.0 || got["rating_max"] != 7.0 || got["icon_type"] != 2.0 {
			t.Fatalf("steps %v rating_max %v icon_type %v, want 7 7 2", got["steps"], got["rating_max"], got["icon_type"])
		}
	}
	// The PATCH the clients send.
	r := f.do(t, "PATCH", itemPath(sid, eid), `{"title":"R","type":7,"steps":10,"icon_type":4,"answer_required":true}`)
	expectCode(t, r, 200)
	got := f.get(t, sid, eid)
	if got["steps"] != 10.0 || got["rating_max"] != 10.0 || got["icon_type"] != 4.0 || got["answer_required"] != true {
		t.Fatalf("after PATCH: steps %v rating_max %v icon_type %v", got["steps"], got["rating_max"], got["icon_type"])
	}
	// rating_max still works, and steps follows it.
	expectCode(t, f.do(t, "PATCH", itemPath(sid, eid), `{"rating_max":4}`), 200)
	if got := f.get(t, sid, eid); got["steps"] != 4.0 || got["icon_type"] != 4.0 {
		t.Fatalf("after rating_max: steps %v icon_type %v", got["steps"], got["icon_type"])
	}
	// A new rating draws stars of 5 steps.
	if d := f.create(t, sid, `{"title":"D","type":7}`); d["steps"] != 5.0 || d["icon_type"] != 1.0 {
		t.Fatalf("defaults: steps %v icon_type %v", d["steps"], d["icon_type"])
	}
	before := f.state(t, sid)
	for _, tt := range []struct{ name, body, want string }{
		{"steps 2", `{"title":"E","type":7,"steps":2}`, fieldErr("steps", "Ensure this value is greater than or equal to 3.")},
		{"steps 11", `{"title":"E","type":7,"steps":11}`, fieldErr("steps", "Ensure this value is less than or equal to 10.")},
		{"steps a string", `{"title":"E","type":7,"steps":"5"}`, fieldErr("steps", notInt)},
		{"steps and rating_max disagree", `{"title":"E","type":7,"steps":5,"rating_max":6}`, fieldErr("steps", "Must equal rating_max when both are sent.")},
		{"icon_type 0", `{"title":"E","type":7,"icon_type":0}`, fieldErr("icon_type", "Ensure this value is greater than or equal to 1.")},
		{"icon_type 5", `{"title":"E","type":7,"icon_type":5}`, fieldErr("icon_type", "Ensure this value is less than or equal to 4.")},
		{"steps on a scale", `{"title":"E","type":6,"steps":7}`, fieldErr("steps", survey.MsgFieldNotTaken(6))},
		{"icon_type on text", `{"title":"E","type":2,"icon_type":2}`, fieldErr("icon_type", survey.MsgFieldNotTaken(2))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expect(t, "POST", f.do(t, "POST", listPath(sid), tt.body), 400, tt.want)
		})
	}
	unchanged(t, "refused creates", before, f.state(t, sid))
	// What a read shows may be sent back on any type (the defaults).
	if e := f.create(t, sid, `{"title":"E","type":2,"steps":5,"icon_type":1}`); e["steps"] != 5.0 {
		t.Fatalf("echo: %v", e)
	}
}

func expectCode(t *testing.T, r reply, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("%d %s, want %d", r.code, r.body, code)
	}
}
