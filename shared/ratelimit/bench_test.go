package ratelimit_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"surveyservice/internal/testenv"
	"surveyservice/shared/ratelimit"
)

// BenchmarkViralSurveyKey: one second of a viral survey on the responders
// function (1,000 submissions and 1,000 sessions: 2,000 requests) spread at
// random over 60 containers at the service's survey rate: how many
// synchronisations (each one UpdateItem and one Query) it costs a request,
// and that none is refused below the limit. Then 4,000 requests in one
// second: how many the limit of 3,000 admits.
func BenchmarkViralSurveyKey(b *testing.B) {
	const containers = 60
	for _, load := range []int{2000, 4000} {
		var admitted, syncs int64
		for range b.N {
			sc := scope("v")
			ls := make([]*ratelimit.Limiter, containers)
			st := testenv.Container(b)
			for i := range ls {
				ls[i] = ratelimit.New(sc, ratelimit.SurveyRate, st, at)
			}
			for range load {
				if ls[rand.IntN(containers)].Allow(context.Background(), "viral") == nil {
					admitted++
				}
			}
			for _, l := range ls {
				syncs += l.Syncs()
			}
		}
		n := int64(b.N)
		b.Logf("%d requests in a second over %d containers, limit %d: %d admitted, %d synchronisations (%.3f a request)",
			load, containers, ratelimit.SurveyRate.Limit, admitted/n, syncs/n, float64(syncs)/float64(n*int64(load)))
		if load <= int(ratelimit.SurveyRate.Limit) && admitted/n != int64(load) {
			b.Errorf("%d of %d admitted below the limit", admitted/n, load)
		}
	}
}
