package survey_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"surveyservice/shared/survey"
)

func TestWellFormedKey(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("A", 43)
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"issued", survey.NewKey(), true},
		{"all alphabet", "svk_" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123-_Z", true},
		{"empty", "", false},
		{"prefix only", "svk_", false},
		{"one short", "svk_" + body[:42], false},
		{"one long", "svk_" + body + "A", false},
		{"wrong prefix", "svx_" + body, false},
		{"upper prefix", "SVK_" + body, false},
		{"no prefix", body + "AAAA", false},
		{"padding", "svk_" + body[:42] + "=", false},
		{"std base64 plus", "svk_" + body[:42] + "+", false},
		{"std base64 slash", "svk_" + body[:42] + "/", false},
		{"space", "svk_" + body[:42] + " ", false},
		{"leading space", " svk_" + body[:42], false},
		{"dot", "svk_" + body[:42] + ".", false},
		{"NUL", "svk_" + body[:42] + "\x00", false},
		{"multibyte with the right byte length", "svk_" + body[:41] + "é", false},
		{"invalid UTF-8", "svk_" + body[:42] + "\xff", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := survey.WellFormedKey(tt.in); got != tt.want {
				t.Errorf("WellFormedKey(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestNewKey(t *testing.T) {
	t.Parallel()
	const n = 1000
	seen := make(map[string]bool, n)
	for range n {
		k := survey.NewKey()
		if !survey.WellFormedKey(k) {
			t.Fatalf("NewKey() = %q is not well formed", k)
		}
		if !strings.HasPrefix(k, survey.KeyPrefix) {
			t.Fatalf("NewKey() = %q lacks %q", k, survey.KeyPrefix)
		}
		if seen[k] {
			t.Fatalf("NewKey() repeated %q", k)
		}
		seen[k] = true
	}
}

func TestHashKey(t *testing.T) {
	t.Parallel()
	hexRE := regexp.MustCompile(`^[0-9a-f]{64}$`)
	tests := []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		if got := survey.HashKey(tt.in); got != tt.want {
			t.Errorf("HashKey(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	k := survey.NewKey()
	got, again := survey.HashKey(k), survey.HashKey(k)
	if got != again {
		t.Errorf("HashKey is not deterministic: %s then %s", got, again)
	}
	if !hexRE.MatchString(got) {
		t.Errorf("HashKey(%q) = %q, want 64 lower-case hex digits", k, got)
	}
	if strings.Contains(got, k[len(survey.KeyPrefix):]) {
		t.Error("the hash contains the key")
	}
	if other := survey.HashKey(survey.NewKey()); other == got {
		t.Error("two keys hash alike")
	}
}

func TestParsePlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    survey.Plan
		wantErr bool
	}{
		{"free", survey.PlanFree, false},
		{"pro", survey.PlanPro, false},
		{"enterprise", survey.PlanEnterprise, false},
		{"", "", true},
		{"Pro", "", true},
		{"PRO", "", true},
		{" pro", "", true},
		{"pro ", "", true},
		{"gold", "", true},
	}
	for _, tt := range tests {
		got, err := survey.ParsePlan(tt.in)
		if got != tt.want {
			t.Errorf("ParsePlan(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if tt.wantErr {
			assertInvalid(t, err, "unknown plan", fmt.Sprintf("%q", tt.in))
		} else if err != nil {
			t.Errorf("ParsePlan(%q): %v", tt.in, err)
		}
	}
}

func TestPlanIncludes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		plan, need survey.Plan
		want       bool
	}{
		{survey.PlanFree, survey.PlanFree, true},
		{survey.PlanFree, survey.PlanPro, false},
		{survey.PlanFree, survey.PlanEnterprise, false},
		{survey.PlanPro, survey.PlanFree, true},
		{survey.PlanPro, survey.PlanPro, true},
		{survey.PlanPro, survey.PlanEnterprise, false},
		{survey.PlanEnterprise, survey.PlanFree, true},
		{survey.PlanEnterprise, survey.PlanPro, true},
		{survey.PlanEnterprise, survey.PlanEnterprise, true},
	}
	for _, tt := range tests {
		if got := tt.plan.Includes(tt.need); got != tt.want {
			t.Errorf("%s.Includes(%s) = %v, want %v", tt.plan, tt.need, got, tt.want)
		}
	}
}

func TestAccountValidate(t *testing.T) {
	t.Parallel()
	good := survey.Account{ID: 1, Email: "owner@example.com", FirstName: "Ada", LastName: "Lovelace", UserType: survey.UserTypeOwner, Plan: survey.PlanPro}
	edit := func(f func(*survey.Account)) survey.Account {
		a := good
		f(&a)
		return a
	}
	tests := []struct {
		name    string
		account survey.Account
		wantErr string // substring of the detail; "" for valid
	}{
		{"good", good, ""},
		{"free", edit(func(a *survey.Account) { a.Plan = survey.PlanFree }), ""},
		{"enterprise", edit(func(a *survey.Account) { a.Plan = survey.PlanEnterprise }), ""},
		{"plus tag", edit(func(a *survey.Account) { a.Email = "a.b+tag@example.co.uk" }), ""},
		{"unicode email", edit(func(a *survey.Account) { a.Email = "پست@مثال.ایران" }), ""},
		{"empty names", edit(func(a *survey.Account) { a.FirstName, a.LastName = "", "" }), ""},
		{"names of 150 code points", edit(func(a *survey.Account) {
			a.FirstName, a.LastName = strings.Repeat("ع", 150), strings.Repeat("x", 150)
		}), ""},
		{"email of 254 characters", edit(func(a *survey.Account) { a.Email = strings.Repeat("a", 249) + "@x.io" }), ""},

		{"empty email", edit(func(a *survey.Account) { a.Email = "" }), "invalid email"},
		{"no at", edit(func(a *survey.Account) { a.Email = "owner.example.com" }), "invalid email"},
		{"no local part", edit(func(a *survey.Account) { a.Email = "@example.com" }), "invalid email"},
		{"no domain", edit(func(a *survey.Account) { a.Email = "owner@" }), "invalid email"},
		{"two ats", edit(func(a *survey.Account) { a.Email = "a@@example.com" }), "invalid email"},
		{"display name", edit(func(a *survey.Account) { a.Email = "Owner <owner@example.com>" }), "invalid email"},
		{"angle brackets", edit(func(a *survey.Account) { a.Email = "<owner@example.com>" }), "invalid email"},
		{"quoted local part", edit(func(a *survey.Account) { a.Email = `"o w"@example.com` }), "invalid email"},
		{"surrounding space", edit(func(a *survey.Account) { a.Email = " owner@example.com" }), "invalid email"},
		{"trailing newline", edit(func(a *survey.Account) { a.Email = "owner@example.com\n" }), "invalid email"},
		{"two addresses", edit(func(a *survey.Account) { a.Email = "a@example.com, b@example.com" }), "invalid email"},
		{"email of 255 characters", edit(func(a *survey.Account) { a.Email = strings.Repeat("a", 250) + "@x.io" }), "longer than 254"},
		{"first name of 151", edit(func(a *survey.Account) { a.FirstName = strings.Repeat("ع", 151) }), "first name is longer than 150"},
		{"last name of 151", edit(func(a *survey.Account) { a.LastName = strings.Repeat("x", 151) }), "last name is longer than 150"},
		{"no plan", edit(func(a *survey.Account) { a.Plan = "" }), "unknown plan"},
		{"bad plan", edit(func(a *survey.Account) { a.Plan = "gold" }), "unknown plan"},
		{"plan case", edit(func(a *survey.Account) { a.Plan = "Pro" }), "unknown plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.account.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			assertInvalid(t, err, tt.wantErr)
		})
	}
}

func TestAccountStringHidesEmail(t *testing.T) {
	t.Parallel()
	a := survey.Account{ID: 42, Email: "secret@example.com", Plan: survey.PlanFree}
	got := fmt.Sprint(a)
	if want := "account 42 (free)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if strings.Contains(fmt.Sprintf("%v %+v %s", a, a, a), "secret") {
		t.Error("formatting an account shows its email")
	}
	p := a.Profile()
	if p.Email != a.Email {
		t.Errorf("Profile().Email = %q, want %q", p.Email, a.Email)
	}
}
