package variables

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/links"
	"surveyservice/shared/survey"
)

// Limits of a personalised links request.
const maxLinks = 5000

// DecodeValues validates the values of a personalised links request
// against the survey's variables: 1 to 5000 objects, each key a variable
// of the survey or is_unique (a boolean), each value a string, number or
// boolean, an integer for a type 2 variable. Errors point at the item:
// {"values": {"3": {"city": ["Unknown variable."]}}}.
func DecodeValues(raw json.RawMessage, present bool, vars []survey.Variable) ([]links.Payload, error) {
	if !present {
		return nil, survey.FieldError("values", api.MsgRequired)
	}
	kind := api.JSONKind(raw)
	if kind == "NoneType" {
		return nil, survey.FieldError("values", api.MsgNull)
	}
	// One decoding pass over the whole list (this is the hot path: 5,000
	// items a request), numbers kept as their text.
	var items []any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if kind != "list" || dec.Decode(&items) != nil {
		return nil, survey.FieldError("values", survey.MsgNotAList(kind))
	}
	// A Decoder stops after one value: anything but whitespace after the
	// list ("[{}]0", found by fuzzing) is not one JSON value.
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, survey.FieldError("values", "Expected a list of items; extra data follows the list.")
	}
	switch {
	case len(items) == 0:
		return nil, survey.FieldError("values", "This list may not be empty.")
	case len(items) > maxLinks:
		return nil, survey.FieldError("values", fmt.Sprintf("Ensure this field has no more than %d elements.", maxLinks))
	}
	types := make(map[string]int64, len(vars))
	for _, v := range vars {
		types[v.Name] = v.Type
	}
	payloads := make([]links.Payload, len(items))
	errs := map[string]any{}
	shown, invalid := 0, 0
	for i, item := range items {
		p, fields := links.DecodeItem(item, types, true)
		if fields == nil {
			payloads[i] = p
			continue
		}
		invalid++
		if size, _ := json.Marshal(fields); shown+len(size) <= maxErrorBytes {
			shown += len(size)
			errs[strconv.Itoa(i)] = fields
		}
	}
	if invalid == 0 {
		return payloads, nil
	}
	e := &survey.Error{Code: survey.EINVALID, Fields: map[string]any{"values": errs}}
	if len(errs) < invalid {
		e.Fields["non_field_errors"] = []string{fmt.Sprintf("%d items are invalid; the errors of the first %d are shown.", invalid, len(errs))}
	}
	return nil, e
}

// maxErrorBytes bounds the item errors one answer shows. An error echoes
// the keys it is about, so that without a bound 6 MiB of short unknown
// keys made a 21 MB answer, which Lambda cannot deliver; beyond it the
// errors of the first items are shown and a note says how many there are.
const maxErrorBytes = 1 << 20

// hashes seals one personalised link per values object, in request order:
// {"urls": ["{survey_url}/s/{slug}/?qs=TOKEN", ...]}. One read of the
// survey and its variables, at most one KMS call (none while the
// container's data key is fresh), then only local AES-GCM, and the
// activity entry's transaction (store.RecordWrite).
func (h handlers) hashes() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		aid, sid, err := surveyID(r)
		if err != nil {
			return err
		}
		body, err := api.ReadBody(r, api.MaxBulkBody)
		if err != nil {
			return err
		}
		sv, vars, _, err := h.st.SurveyVariables(r.Context(), aid, sid)
		if err != nil {
			return err
		}
		// The fast path parses (and so validates) the common body in one
		// pass; anything else is checked and worded by the general path.
		payloads, fast := fastValues(body, vars)
		if !fast {
			raw, err := api.ParseJSON(body)
			if err != nil {
				return err
			}
			if raw == nil {
				raw = json.RawMessage(`{}`)
			}
			if kind := api.JSONKind(raw); kind != "dict" {
				return api.NotADict(kind)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(raw, &body); err != nil {
				return err
			}
			values, present := body["values"]
			if payloads, err = DecodeValues(values, present, vars); err != nil {
				return err
			}
		}
		base, err := h.linkBase(r.Context(), aid)
		if err != nil {
			return err
		}
		prefix := urlsPrefix(base + "/s/" + url.PathEscape(sv.URLSlug) + "/?qs=")
		if err := fitsAnswer(prefix, payloads); err != nil {
			return err
		}
		if sv.Deleted {
			return survey.Errorf(survey.ECONFLICT, "Survey is deleted.")
		}
		// The answer is written as the tokens are made, into one buffer of
		// its exact size: no token becomes a string of its own.
		out := make([]byte, 0, urlsJSONLen(prefix, payloads))
		out = append(out, `{"urls":[`...)
		err = h.sealer.SealEach(r.Context(), sid, payloads, func(i int, token []byte) {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, prefix...)
			out = append(out, token...)
			out = append(out, '"')
		})
		if err != nil {
			return err
		}
		// Minting writes nothing to the table: its activity entry is the
		// write (contract section 19), recorded before the links are
		// answered, so a link answered is never missing from the log and
		// a member whose share ended meanwhile gets no link.
		survey.AnswerStatus(r.Context(), http.StatusOK)
		if err := h.st.RecordWrite(r.Context()); err != nil {
			return err
		}
		api.Respond(w, r, http.StatusOK, json.RawMessage(append(out, "]}"...)))
		return nil
	})
}

// fitsAnswer refuses, before any key is fetched or link sealed, a request
// whose answer would be larger than api.MaxAnswer: the token of every
// payload has a length known in advance (links.TokenLen), so the answer's
// size is exact. The request body may be 6 MiB, and a link is about 4/3 of
// its values: without this, the largest requests answered over 8 MiB,
// which Lambda cannot deliver.
func fitsAnswer(prefix string, payloads []links.Payload) error {
	n := urlsJSONLen(prefix, payloads)
	if n <= api.MaxAnswer {
		return nil
	}
	return survey.FieldError("values", fmt.Sprintf(
		"These links would take %s, more than the %s an answer may hold; send fewer items or shorter values.",
		api.SizeName(int64(n)), api.SizeName(api.MaxAnswer)))
}

// linkBase is where the account's personalised links point: its subdomain,
// read strongly consistent so a change shows at once, when subdomains are
// configured (no read otherwise), else PUBLIC_SURVEY_URL.
func (h handlers) linkBase(ctx context.Context, aid int64) (string, error) {
	if h.hosts.Domain == "" {
		return strings.TrimRight(h.surveyURL, "/"), nil
	}
	sub, err := h.st.AccountSubdomain(ctx, aid)
	if err != nil {
		return "", err
	}
	return h.hosts.SurveyBase(h.surveyURL, sub), nil
}
