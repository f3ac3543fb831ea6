package localaws_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"surveyservice/internal/localaws"
	"surveyservice/shared/awsenv"
)

// TestScopedMarksEveryCall: a fault reads the scope of the client that
// made the call, whatever context the call was made with; a Scoped of a
// Scoped has the last scope; a client of the plain configuration has none.
// The fault fails each call before it is sent: nothing listens there.
func TestScopedMarksEveryCall(t *testing.T) {
	env := map[string]string{"AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": "http://127.0.0.1:1",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
	cfg, err := localaws.Load(context.Background(), awsenv.FromEnv(func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	stop := errors.New("injected")
	restore := localaws.InjectFaults(func(ctx context.Context, _, _ string) error {
		seen = append(seen, localaws.ScopeOf(ctx))
		return stop
	})
	defer restore()
	for _, c := range []struct {
		cfg  aws.Config
		want string
	}{
		{localaws.Scoped(cfg, "TestA"), "TestA"},
		{localaws.Scoped(localaws.Scoped(cfg, "TestA"), "TestB"), "TestB"},
		{cfg, ""},
	} {
		seen = nil
		_, err := dynamodb.NewFromConfig(c.cfg).ListTables(context.Background(), &dynamodb.ListTablesInput{})
		if !errors.Is(err, stop) || len(seen) != 1 || seen[0] != c.want {
			t.Errorf("a call of a client scoped %q: error %v, the fault saw scopes %q", c.want, err, seen)
		}
	}
}
