package challenge_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"surveyservice/shared/challenge"
	"surveyservice/shared/links"
)

// The real sealer is a challenge.Sealer (checked here: the package itself
// names only datakey's purposes, so that the store does not link KMS).
var _ challenge.Sealer = (*links.Sealer)(nil)

// fakeSealer seals by prefixing the purpose and survey: enough to test
// the challenge's logic; the real sealer's binding is tested in links.
type fakeSealer struct{}

func (fakeSealer) SealFor(_ context.Context, p links.Purpose, sid int64, plain []byte) (string, error) {
	return string(p) + string(rune('0'+sid)) + "|" + hex.EncodeToString(plain), nil
}

func (fakeSealer) OpenFor(_ context.Context, p links.Purpose, sid int64, token string) ([]byte, error) {
	head, body, ok := strings.Cut(token, "|")
	if !ok || head != string(p)+string(rune('0'+sid)) {
		return nil, links.ErrInvalid
	}
	b, err := hex.DecodeString(body)
	if err != nil {
		return nil, links.ErrInvalid
	}
	return b, nil
}

// spentSet is a Spender in memory: one put wins.
type spentSet struct {
	mu    sync.Mutex
	spent map[string]bool
}

func (s *spentSet) SpendChallenge(_ context.Context, sid int64, salt string, _ time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spent == nil {
		s.spent = map[string]bool{}
	}
	if s.spent[salt] {
		return challenge.ErrSpent
	}
	s.spent[salt] = true
	return nil
}

func TestSolved(t *testing.T) {
	t.Parallel()
	salt := strings.Repeat("ab", challenge.SaltLen)
	nonce := challenge.Solve(salt, 12)
	sum := sha256.Sum256([]byte(salt + ":" + nonce))
	if got := challenge.LeadingZeros(sum); got < 12 {
		t.Fatalf("Solve gave %q with %d zero bits", nonce, got)
	}
	cases := []struct {
		name  string
		nonce string
		want  bool
	}{
		{"the solution", nonce, true},
		{"empty", "", false},
		{"not decimal", "12a", false},
		{"negative", "-" + nonce, false},
		{"21 digits", strings.Repeat("1", 21), false},
		{"leading space", " " + nonce, false},
	}
	for _, tc := range cases {
		if got := challenge.Solved(salt, tc.nonce, 12); got != tc.want {
			t.Errorf("%s: Solved(%q) = %v, want %v", tc.name, tc.nonce, got, tc.want)
		}
	}
	// A harder difficulty than the nonce meets is refused (the first
	// nonce with 12 bits seldom has 24).
	if sum[0] != 0 || sum[1] != 0 || sum[2] != 0 {
		if challenge.Solved(salt, nonce, 24) {
			t.Errorf("Solved at 24 bits with a hash %x", sum[:4])
		}
	}
}

func TestLeadingZeros(t *testing.T) {
	t.Parallel()
	var h [32]byte
	if got := challenge.LeadingZeros(h); got != 256 {
		t.Errorf("all zero: %d", got)
	}
	h[2] = 0x10
	if got := challenge.LeadingZeros(h); got != 19 {
		t.Errorf("0000 10..: %d, want 19", got)
	}
}

func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	c := challenge.Challenge{Difficulty: 18, ExpiresAt: time.Unix(1_800_000_000, 0).UTC()}
	copy(c.Salt[:], "0123456789abcdef")
	got, err := challenge.Decode(c.Encode())
	if err != nil || got != c {
		t.Fatalf("Decode(Encode) = %+v, %v; want %+v", got, err, c)
	}
	for _, bad := range [][]byte{nil, {1}, append([]byte{2}, c.Encode()[1:]...), append(c.Encode(), 0)} {
		if _, err := challenge.Decode(bad); err == nil {
			t.Errorf("Decode(%x) accepted", bad)
		}
	}
}

// issue makes a challenge at the test's difficulty-free pace: the real
// Difficulty, solved by Solve (about 2^18 hashes, a few hundred ms).
func issue(t *testing.T, sid int64, now time.Time) (challenge.Issued, challenge.Solution) {
	t.Helper()
	is, err := challenge.Issue(context.Background(), fakeSealer{}, sid, now)
	if err != nil {
		t.Fatal(err)
	}
	if is.Difficulty != challenge.Difficulty || len(is.Salt) != 2*challenge.SaltLen {
		t.Fatalf("issued %+v", is)
	}
	return is, challenge.Solution{Challenge: is.Challenge, Nonce: challenge.Solve(is.Salt, is.Difficulty)}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	is, sol := issue(t, 7, now)
	if is.ExpiresAt != "2026-11-25T04:10:00Z" {
		t.Errorf("expires_at %s", is.ExpiresAt)
	}
	cases := []struct {
		name string
		sid  int64
		sol  challenge.Solution
		at   time.Time
	}{
		{"another survey", 8, sol, now},
		{"expired", 7, sol, now.Add(challenge.Validity)},
		{"wrong nonce", 7, challenge.Solution{Challenge: sol.Challenge, Nonce: sol.Nonce + "0"}, now},
		{"forged token", 7, challenge.Solution{Challenge: "x", Nonce: sol.Nonce}, now},
	}
	spent := &spentSet{}
	for _, tc := range cases {
		err := challenge.Check(ctx, fakeSealer{}, spent, tc.sid, tc.sol, tc.at)
		if !errors.Is(err, challenge.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
	}
	if err := challenge.Check(ctx, fakeSealer{}, spent, 7, sol, now.Add(time.Minute)); err != nil {
		t.Fatalf("the solution: %v", err)
	}
	if err := challenge.Check(ctx, fakeSealer{}, spent, 7, sol, now.Add(time.Minute)); !errors.Is(err, challenge.ErrInvalid) {
		t.Errorf("reused: %v, want ErrInvalid", err)
	}
}

// TestCheckRace: of racing checks of one solution exactly one passes.
func TestCheckRace(t *testing.T) {
	t.Parallel()
	now := time.Now()
	_, sol := issue(t, 3, now)
	spent := &spentSet{}
	var passed atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if challenge.Check(context.Background(), fakeSealer{}, spent, 3, sol, now) == nil {
				passed.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := passed.Load(); got != 1 {
		t.Errorf("%d checks passed, want 1", got)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	if _, err := challenge.Parse(nil); !errors.Is(err, challenge.ErrRequired) {
		t.Errorf("absent: %v", err)
	}
	for _, v := range []any{"s", 1.0, []any{}, map[string]any{"challenge": "c"}, map[string]any{"challenge": "", "nonce": "1"}, map[string]any{"challenge": "c", "nonce": 1.0}} {
		if _, err := challenge.Parse(v); !errors.Is(err, challenge.ErrInvalid) {
			t.Errorf("Parse(%v) = %v, want ErrInvalid", v, err)
		}
	}
	got, err := challenge.Parse(map[string]any{"challenge": "c", "nonce": "12"})
	if err != nil || got != (challenge.Solution{Challenge: "c", Nonce: "12"}) {
		t.Errorf("Parse = %+v, %v", got, err)
	}
}

func FuzzDecode(f *testing.F) {
	c := challenge.Challenge{Difficulty: 18, ExpiresAt: time.Unix(1_800_000_000, 0)}
	f.Add(c.Encode())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := challenge.Decode(b)
		if err == nil && !bytes.Equal(c.Encode(), b) {
			t.Errorf("Decode(%x) re-encodes to %x", b, c.Encode())
		}
	})
}

func FuzzSolved(f *testing.F) {
	f.Add("00", "1", 1)
	f.Fuzz(func(t *testing.T, salt, nonce string, d int) {
		if challenge.Solved(salt, nonce, d) && (nonce == "" || len(nonce) > challenge.MaxNonce) {
			t.Errorf("Solved(%q, %q, %d)", salt, nonce, d)
		}
	})
}

// BenchmarkSolved is the server's hash of a solution check (the rest of
// Verify is opening a sealed token, measured in shared/links; Check adds
// one conditional put, counted in functions/responders).
func BenchmarkSolved(b *testing.B) {
	now := time.Now()
	is, err := challenge.Issue(context.Background(), fakeSealer{}, 1, now)
	if err != nil {
		b.Fatal(err)
	}
	nonce := challenge.Solve(is.Salt, is.Difficulty)
	b.ReportAllocs()
	for b.Loop() {
		if !challenge.Solved(is.Salt, nonce, is.Difficulty) {
			b.Fatal("not solved")
		}
	}
}
