package survey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/mail"
	"strings"
)

// Plan is an account's subscription level; settings are gated by it.
type Plan string

// The plans, from least to most.
const (
	PlanFree       Plan = "free"
	PlanPro        Plan = "pro"
	PlanEnterprise Plan = "enterprise"
)

var planRank = map[Plan]int{PlanFree: 0, PlanPro: 1, PlanEnterprise: 2}

// ParsePlan returns the plan named s, or EINVALID.
func ParsePlan(s string) (Plan, error) {
	if _, ok := planRank[Plan(s)]; !ok {
		return "", Errorf(EINVALID, "unknown plan %q: want free, pro or enterprise", s)
	}
	return Plan(s), nil
}

// Includes reports whether p gives everything the plan need gives.
// An unknown plan includes nothing.
func (p Plan) Includes(need Plan) bool {
	have, ok := planRank[p]
	return ok && have >= planRank[need]
}

// UserTypeOwner is the user_type of an account's owner.
const UserTypeOwner = 1

// Account is a customer of the service: the owner of folders and surveys.
type Account struct {
	ID        int64
	Email     string
	FirstName string
	LastName  string
	UserType  int
	Plan      Plan
}

// Profile is how an account appears as `shared_by` on folders and surveys.
type Profile struct {
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	UserType  int    `json:"user_type"`
}

// Profile returns the account's public profile.
func (a Account) Profile() Profile {
	return Profile{Email: a.Email, FirstName: a.FirstName, LastName: a.LastName, UserType: a.UserType}
}

// Validate checks an account about to be created. It returns EINVALID.
func (a Account) Validate() error {
	addr, err := mail.ParseAddress(a.Email)
	if err != nil || addr.Address != a.Email || !strings.Contains(a.Email, "@") {
		return Errorf(EINVALID, "invalid email %q", a.Email)
	}
	if len([]rune(a.Email)) > 254 {
		return Errorf(EINVALID, "email is longer than 254 characters")
	}
	for name, v := range map[string]string{"first name": a.FirstName, "last name": a.LastName} {
		if n := len([]rune(v)); n > 150 {
			return Errorf(EINVALID, "%s is longer than 150 characters (%d)", name, n)
		}
	}
	if _, err := ParsePlan(string(a.Plan)); err != nil {
		return err
	}
	return nil
}

// KeyPrefix starts every API key, so that leaked keys are easy to find by
// secret scanners; the rest is 32 random bytes in URL-safe base64.
const KeyPrefix = "svk_"

// WellFormedKey reports whether s could be a key this service issued. It is
// checked before any store read, so junk never costs a DynamoDB call.
func WellFormedKey(s string) bool {
	if !strings.HasPrefix(s, KeyPrefix) || len(s) != len(KeyPrefix)+43 {
		return false
	}
	for _, c := range s[len(KeyPrefix):] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// String keeps keys and emails out of logs that print an account.
func (a Account) String() string { return fmt.Sprintf("account %d (%s)", a.ID, a.Plan) }

// HashKey is the SHA-256 of an API key, in hex: the only form of a key the
// service stores.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// NewKey returns a fresh API key: KeyPrefix and 32 bytes from crypto/rand.
func NewKey() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return KeyPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}
