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

	"surveyservice/shared/api"
	"surveyservice/shared/survey"
)

// Deps are the group's dependencies.
type Deps struct {
	// Auth checks every request's API key.
	Auth *api.Authenticator
	// Store holds the members and the activity log.
	Store Store
}

// New returns the group's routes.
func New(d Deps) *api.Router {
	rt := api.NewRouter(d.Auth)
	whoami := api.Route{Path: "/api/whoami/", Name: "Who Am I"}
	rt.Handle(whoami.With("GET"), handleWhoAmI())
	post := whoami.With("POST")
	post.KeyOptional = true
	post.Access = api.AccessRead // answers as GET, writes nothing
	rt.Handle(post, handleWhoAmIPost(d.Auth))
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
// store is an error.
func handleWhoAmIPost(auth *api.Authenticator) http.Handler {
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
		_, err = auth.Authenticate(r.Context(), []string{value})
		switch survey.ErrorCode(err) {
		case "":
			api.Respond(w, r, http.StatusOK, signedIn)
		case survey.EUNAUTHORIZED, survey.EFORBIDDEN: // a member's key off the team plan signs in no one
			api.Respond(w, r, http.StatusOK, notSignedIn)
		default:
			return err
		}
		return nil
	})
}

// bodyAuthorization is the "authorization" value of a form or JSON body,
// or "" for any other body. Only a body over api.MaxBody is an error (413).
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
	media, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
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

// handleUser answers the authenticated account in dj-rest-auth's shape:
// the plugins read the user there once signed in (view/settings.php of
// common-repository/porsline, lines 16-24), and take a "detail" key as a
// failed sign-in.
func handleUser() http.Handler {
	return api.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		p, ok := api.PrincipalFrom(r.Context())
		if !ok {
			return survey.Errorf(survey.EINTERNAL, "user details without an account")
		}
		a := p.Account
		u := User{PK: a.ID, Email: a.Email, FirstName: a.FirstName, LastName: a.LastName}
		if m := p.Member; m != nil { // a member: their own profile, their sub_user as pk
			u = User{PK: m.SubUser, Email: m.Email, FirstName: m.FirstName, LastName: m.LastName}
		}
		api.Respond(w, r, http.StatusOK, u)
		return nil
	})
}
