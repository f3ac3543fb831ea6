package hosts

import (
	"context"
	"fmt"
	"testing"
	"time"

	"surveyservice/shared/store"
)

// countingStore serves one subdomain name and one custom domain, and
// counts its reads.
type countingStore struct{ reads int }

func (s *countingStore) ResolveSubdomain(_ context.Context, name string) (store.SubdomainHost, error) {
	s.reads++
	if name == "acme" {
		return store.SubdomainHost{AccountID: 7, Active: true}, nil
	}
	return store.SubdomainHost{}, nil
}

func (s *countingStore) ResolveDomain(_ context.Context, domain string) (int64, error) {
	s.reads++
	if domain == "forms.acme.example" {
		return 7, nil
	}
	return 0, nil
}

// TestMadeUpHostsKeepTheServingOnesCached: requests for more made-up hosts
// than the cache holds (any name under PUBLIC_SURVEY_DOMAIN, any domain)
// cost a read each, but never push the hosts that serve out of the
// container's cache: before, the cache started over when full, and every
// serving host was read again (hostile10).
func TestMadeUpHostsKeepTheServingOnesCached(t *testing.T) {
	st := &countingStore{}
	r := New(Config{Domain: "survey.example"}, st)
	now := time.Now()
	r.Now = func() time.Time { return now }
	ctx := context.Background()
	for _, custom := range []bool{false, true} {
		if _, err := r.resolve(ctx, map[bool]string{false: "acme", true: "forms.acme.example"}[custom], custom); err != nil {
			t.Fatal(err)
		}
	}
	for i := range cacheMax + 10 {
		if h, err := r.resolve(ctx, fmt.Sprintf("made-up-%d", i), i%2 == 0); err != nil || h.AccountID != 0 {
			t.Fatalf("a made-up host: %+v %v", h, err)
		}
	}
	before := st.reads
	for _, custom := range []bool{false, true} {
		h, err := r.resolve(ctx, map[bool]string{false: "acme", true: "forms.acme.example"}[custom], custom)
		if err != nil || h.AccountID != 7 {
			t.Fatalf("a serving host: %+v %v", h, err)
		}
	}
	if st.reads != before {
		t.Errorf("the serving hosts were read again after %d made-up ones: %d reads", cacheMax+10, st.reads-before)
	}
	// A made-up host seen again within the cache's time is not read again.
	if _, err := r.resolve(ctx, fmt.Sprintf("made-up-%d", cacheMax+9), false); err != nil || st.reads != before {
		t.Errorf("a made-up host seen again: %d reads, %v", st.reads-before, err)
	}
}
