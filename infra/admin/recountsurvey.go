package main

import (
	"context"
	"fmt"
	"time"

	"surveyservice/shared/survey"
)

// defaultQuiet is how long a survey must have had no submission or edit
// before it is recounted: far past the tally's lag (seconds), so every
// response read has been applied by the tally (store.RecountSurvey).
const defaultQuiet = 10 * time.Minute

// recountSurvey recomputes a survey's submitted_responses, spam_responses
// and report counts from its responses and corrects them
// (store.RecountSurvey); --dry-run prints the differences and writes
// nothing. It refuses (exit 1) on a survey with a response submitted or
// edited within --quiet, whose counts the tally may not have applied yet.
func recountSurvey(ctx context.Context, sid int64, dryRun bool, quiet time.Duration, getenv func(string) string) (any, error) {
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	res, err := st.RecountSurvey(ctx, sid, quiet, dryRun)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil, fmt.Errorf("no survey has id %d", sid)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"survey_id": sid, "dry_run": dryRun, "responses": res.Responses, "changes": res.Changes}, nil
}
