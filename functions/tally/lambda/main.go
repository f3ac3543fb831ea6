// Command lambda is the tally function: run by the table's stream (with a
// tumbling window, for the shard id), it adds submitted responses to their
// surveys' counts exactly once.
package main

import (
	"time"

	"surveyservice/functions/tally"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.MainEvents(func(env lambdamain.Env) (any, error) {
		t := tally.New(tally.Deps{Store: env.Store, Now: time.Now})
		return t.Handle, nil
	})
}
