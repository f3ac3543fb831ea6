package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"surveyservice/shared/survey"
)

// recount sets an account's counts of live surveys and folders from what
// it holds (store.Recount): the repair of an account created before the
// counts existed, which would otherwise undercount against its limits.
// With --survey instead it recounts one survey's responses and report
// (recountSurvey).
func recount(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("recount")
	account := fs.String("account", "", "account id")
	sv := fs.String("survey", "", "survey id")
	dryRun := fs.Bool("dry-run", false, "with --survey: print the differences, write nothing")
	quiet := fs.Duration("quiet", defaultQuiet, "with --survey: refuse when a response was submitted or edited this recently")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	if *sv != "" {
		sid, err := strconv.ParseInt(*sv, 10, 64)
		if err != nil || sid <= 0 || *account != "" {
			return nil, fmt.Errorf("%w: recount needs either --account or --survey with a positive survey id", errUsage)
		}
		if *quiet < time.Minute {
			return nil, fmt.Errorf("%w: recount --quiet must be at least 1m (the tally's lag is seconds)", errUsage)
		}
		return recountSurvey(ctx, sid, *dryRun, *quiet, getenv)
	}
	surveyOnly := false
	fs.Visit(func(f *flag.Flag) { surveyOnly = surveyOnly || f.Name == "dry-run" || f.Name == "quiet" })
	if surveyOnly {
		return nil, fmt.Errorf("%w: recount --dry-run and --quiet go with --survey", errUsage)
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
