package localaws_test

import (
	"context"
	"testing"

	"surveyservice/internal/localaws"
	"surveyservice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestEnsureTableIsIdempotent(t *testing.T) {
	t.Parallel()
	st := testenv.Store(t)
	for range 2 {
		if err := localaws.EnsureTable(context.Background(), st.Client(), "ensure-twice"); err != nil {
			t.Fatal(err)
		}
	}
}
