package main

import (
	"context"
	"fmt"
	"strconv"

	"surveyservice/shared/survey"
)

// recount sets an account's counts of live surveys and folders from what
// it holds (store.Recount): the repair of an account created before the
// counts existed, which would otherwise undercount against its limits.
func recount(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("recount")
	account := fs.String("account", "", "account id")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	id, err := strconv.ParseInt(*account, 10, 64)
	if err != nil || id <= 0 {
		return nil, fmt.Errorf("%w: recount needs --account with a positive account id", errUsage)
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	before, after, err := st.Recount(ctx, id)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil, fmt.Errorf("no account has id %d", id)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"account_id": id, "before": before, "after": after}, nil
}
