// Package localaws is what tests and `make run` (infra/local) do to AWS
// and its emulators that no Lambda function does: create the table, the
// KMS key and the buckets that template.yaml makes in AWS, address the
// uploads bucket through a local proxy, and fail chosen AWS calls on
// purpose (InjectFaults). Nothing a Lambda runs imports it (a test of the
// import graph holds this: lambdas_test.go).
package localaws

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
)

// Load is awsenv.Load with the fault injector installed on every client
// made from the configuration: the AWS configuration of tests and of
// `make run`.
func Load(ctx context.Context, c awsenv.Config) (aws.Config, error) {
	cfg, err := awsenv.Load(ctx, c)
	if err != nil {
		return aws.Config{}, err
	}
	cfg.APIOptions = append(cfg.APIOptions, faultOptions)
	return cfg, nil
}

// OpenStore connects to the table the environment names (TABLE_NAME), with
// its AWS settings and the fault injector, as `make run` and the load tool
// do; a Lambda's main gets its store from shared/lambdamain.
func OpenStore(ctx context.Context, getenv func(string) string) (*store.Store, error) {
	cfg, err := Load(ctx, awsenv.FromEnv(getenv))
	if err != nil {
		return nil, err
	}
	st := store.New(cfg, store.TableNameFrom(getenv))
	st.MediaURL = getenv("MEDIA_URL")
	return st, nil
}
