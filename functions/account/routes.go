// Package account answers who the caller is, and is the owner's account:
// its members (contract section 19) and the activity log of its writes.
package account

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"surveyservice/shared/api"
	"surveyservice/shared/ratelimit"
	"surveyservice/shared/survey"
)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth *api.Authenticator
	// Store holds the members and the activity log.
	Store Store
	// Domains configures the custom domain routes (DomainsFromEnv).
	Domains Domains
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	rt := api.NewRouter(d.Auth)
	whoami := api.Route{Path: "/api/whoami/", Name: "Who Am I"}
	rt.Handle(whoami.With("GET"), handleWhoAmI())
	post := whoami.With("POST")
	post.KeyOptional = true
	post.Access = api.AccessRead // answers as GET, writes nothing
	var guesses *ratelimit.Limiter
	if c, ok := d.Store.(ratelimit.Counters); ok {
		guesses = ratelimit.New("whoami-keys", ratelimit.KeyGuessRate, c, nil)
	}
	rt.Handle(post, handleWhoAmIPost(d.Auth, guesses))
	rt.Handle(api.Route{Method: "GET", Path: "/rest-auth/user/", Name: "User Details"}, handleUser())
	members := api.Route{Path: "/api/members/", Name: "Member List", Access: api.AccessOwner}
	member := api.Route{Path: "/api/members/{sub_user}/", Name: "Member Detail", Access: api.AccessOwner}
	key := api.Route{Path: "/api/members/{sub_user}/key/", Name: "Member Key", Access: api.AccessOwner}
	rt.Handle(members.With("GET"), handleMembers(d.Store))
	rt.Handle(members.With("POST"), handleCreateMember(d.Store))
	rt.Handle(member.With("DELETE"), handleDeleteMember(d.Store))
	rt.Handle(key.With("POST"), handleMemberKey(d.Store))
	rt.Handle(api.Route{Method: "GET", Path: "/api/activity/", Name: "Activity List", Access: api.AccessOwner}, handleActivity(d.Store))
	sub := api.Route{Path: "/api/account/subdomain/", Name: "Account Subdomain", Access: api.AccessOwner}
	rt.Handle(sub.With("GET"), handleSubdomainGet(d.Store))
	rt.Handle(sub.With("PUT"), handleSubdomainPut(d.Store))
	rt.Handle(sub.With("DELETE"), handleSubdomainDelete(d.Store))
	ds := domainStore(d.Store)
	doms := api.Route{Path: "/api/account/domains/", Name: "Account Domain List", Access: api.AccessOwner}
	dom := api.Route{Path: "/api/account/domains/{domain_id}/", Name: "Account Domain", Access: api.AccessOwner}
	rt.Handle(doms.With("GET"), handleDomains(ds, d.Domains))
	rt.Handle(doms.With("POST"), handleDomainClaim(ds, d.Domains))
	rt.Handle(dom.With("GET"), handleDomainGet(ds, d.Domains))
	rt.Handle(dom.With("DELETE"), handleDomainDelete(ds, d.Domains))
	rt.Handle(api.Route{Method: "POST", Path: "/api/account/domains/{domain_id}/verify/", Name: "Account Domain Verify", Access: api.AccessOwner},
		handleDomainVerify(ds, d.Domains))
	return rt
}

// WhoAmI is the answer of /api/whoami/: the owner's profile, or a
// member's with user_type 2 and their sub_user; plan is the account's.
type WhoAmI struct {
	Authenticated bool        `json:"authenticated"`
	Email         string      `json:"email"`
	FirstName     string      `json:"first_name"`
	LastName      string      `json:"last_name"`
	Plan          survey.Plan `json:"plan"`
	UserType      int         `json:"user_type"`
	SubUser       *int64      `json:"sub_user"`
}

// handleWhoAmI answers who holds the key.
func handleWhoAmI() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		p, ok := api.PrincipalFrom(r.Context())
		if !ok {
			return survey.Errorf(survey.EINTERNAL, "whoami without an account")
		}
		a := p.Account
		me := WhoAmI{Authenticated: true, Email: a.Email, FirstName: a.FirstName, LastName: a.LastName, Plan: a.Plan,
			UserType: survey.UserTypeOwner}
		if m := p.Member; m != nil {
			me.Email, me.FirstName, me.LastName = m.Email, m.FirstName, m.LastName
			me.UserType, me.SubUser = survey.UserTypeMember, p.SubUser()
		}
		api.Respond(w, r, http.StatusOK, me)
		return nil
	})
}

// The sign-in answers of Porsline's WordPress plugins, byte for byte: the
// plugins compare the body with the string '{"authenticated": true}'
// (view/auth-api-ajax.php lines 16 and 25 of common-repository/porsline),
// so the space after the colon, as Python's json writes it, is part of
// the answer.
var (
	signedIn    = json.RawMessage(`{"authenticated": true}`)
	notSignedIn = json.RawMessage(`{"authenticated": false}`)
)

// handleWhoAmIPost answers as GET when the request has an Authorization
// header (checked as everywhere). Without one, it reads the key from the
// body, as the plugins send it (form field or JSON key "authorization",
// "API-Key <key>" with the scheme in any case), and answers 200 with
// exactly signedIn or notSignedIn (contract section 21); only a failing
// store is an error. Failed keys are counted per client (guesses, when
// the store keeps counters): past ratelimit.KeyGuessRate, 429.
func handleWhoAmIPost(auth *api.Authenticator, guesses *ratelimit.Limiter) http.Handler {
	full := handleWhoAmI()
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if _, ok := api.AccountFrom(r.Context()); ok {
			full.ServeHTTP(w, r)
			return nil
		}
		value, err := bodyAuthorization(r)
		if err != nil {
			return err
		}
		client := ratelimit.ClientKey(api.ClientIP(r))
		if guesses != nil {
			if err := guesses.Over(client); err != nil {
				return err
			}
		}
		_, err = auth.Authenticate(r.Context(), []string{value})
		switch survey.ErrorCode(err) {
		case "":
			api.Respond(w, r, http.StatusOK, signedIn)
		case survey.EUNAUTHORIZED, survey.EFORBIDDEN: // a member's key off the team plan signs in no one
			if guesses != nil {
				if err := guesses.Allow(r.Context(), client); err != nil {
					return err
				}
			}
			api.Respond(w, r, http.StatusOK, notSignedIn)
		default:
			return err
		}
		return nil
	})
}

// bodyAuthorization is the "authorization" value of a form or JSON body
// ("" when it has none). A body of another type, or without a
// Content-Type, answers 415 (contract section 3, kept by section 21
// amended); one over api.MaxBody 413.
func bodyAuthorization(r *http.Request) (string, error) {
	if r.Body == nil {
		return "", nil
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, api.MaxBody+1))
	if err != nil {
		return "", nil
	}
	if len(data) > api.MaxBody {
		return "", survey.Errorf(survey.ETOOLARGE, "Request body is larger than 1 MiB.")
	}
	ct := r.Header.Get("Content-Type")
	media, params, perr := mime.ParseMediaType(ct)
	switch {
	case len(data) == 0:
		return "", nil
	case ct == "" || perr != nil:
		// Section 3's rule, public routes included: a body needs its type.
		return "", survey.Errorf(survey.EMEDIATYPE, "Unsupported media type %q in request.", ct)
	case media != "application/x-www-form-urlencoded" && media != "multipart/form-data" && media != "application/json" &&
		!(strings.HasPrefix(media, "application/") && strings.HasSuffix(media, "+json")):
		return "", survey.Errorf(survey.EMEDIATYPE, "Unsupported media type %q in request.", media)
	}
	switch {
	case media == "application/x-www-form-urlencoded":
		q, _ := url.ParseQuery(string(data))
		return q.Get("authorization"), nil
	case media == "multipart/form-data":
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(data))
		r2.Header.Set("Content-Type", mime.FormatMediaType(media, params))
		if err := r2.ParseMultipartForm(api.MaxBody); err != nil {
			return "", nil
		}
		return r2.FormValue("authorization"), nil
	default:
		var body struct {
			Authorization string `json:"authorization"`
		}
		var typeErr *json.UnmarshalTypeError
		if err := json.Unmarshal(data, &body); err != nil && !errors.As(err, &typeErr) {
			return "", nil
		}
		return body.Authorization, nil
	}
}

// User is dj-rest-auth's user shape, as GET /rest-auth/user/ answers it.
type User struct {
	PK        int64  `json:"pk"`
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
}

// MemberPKBase puts members' pks above every account id: account ids and
// sub_user ids are counted apart (account 25 and member 25 both exist),
// and a pk is no other person's (contract section 19 amended). Account ids
// stay far below 2^40, and 2^40 + a sub_user stays within JSON's exact
// integers (2^53).
const MemberPKBase int64 = 1 << 40

// MemberPK is a member's pk on /rest-auth/user/: MemberPKBase + sub_user.
func MemberPK(subUser int64) int64 { return MemberPKBase + subUser }

// handleUser answers the authenticated account in dj-rest-auth's shape:
// the plugins read the user there once signed in (view/settings.php of
// common-repository/porsline, lines 16-24), and take a "detail" key as a
// failed sign-in. An owner's pk is the account id, a member's MemberPK.
func handleUser() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		p, ok := api.PrincipalFrom(r.Context())
		if !ok {
			return survey.Errorf(survey.EINTERNAL, "user details without an account")
		}
		a := p.Account
		u := User{PK: a.ID, Email: a.Email, FirstName: a.FirstName, LastName: a.LastName}
		if m := p.Member; m != nil { // a member: their own profile
			u = User{PK: MemberPK(m.SubUser), Email: m.Email, FirstName: m.FirstName, LastName: m.LastName}
		}
		api.Respond(w, r, http.StatusOK, u)
		return nil
	})
}
