package store

import (
	"context"

	"surveyservice/shared/awsenv"
)

// DefaultTableName is the table when TABLE_NAME is unset.
const DefaultTableName = "surveys"

// TableNameFrom reads TABLE_NAME (default "surveys") through getenv.
func TableNameFrom(getenv func(string) string) string {
	if name := getenv("TABLE_NAME"); name != "" {
		return name
	}
	return DefaultTableName
}

// Open connects to the named table with the AWS settings c.
func Open(ctx context.Context, c awsenv.Config, tableName string) (*Store, error) {
	cfg, err := awsenv.Load(ctx, c)
	if err != nil {
		return nil, err
	}
	return New(cfg, tableName), nil
}
