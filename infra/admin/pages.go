package main

import (
	"context"
	"fmt"
	"strconv"
)

// pagesAll is what pages backfill --all prints.
type pagesAll struct {
	Scanned             int64   `json:"scanned"` // items the one-off Scan read
	Surveys             int     `json:"surveys"`
	CodesComplete       int     `json:"codes_complete"`
	CodesIncomplete     []int64 `json:"codes_incomplete"`
	CodesUnrepairable   []int64 `json:"codes_unrepairable"`
	ResponsesComplete   int     `json:"responses_complete"`
	ResponsesIncomplete []int64 `json:"responses_incomplete"`
}

// backfillPages gives surveys written before the page indexes existed
// their indexes (store.BackfillPages), so their codes' and results' page
// N starts without reading the pages before it: one survey (--survey) or
// every survey (--all, after a one-off Scan for the survey items).
// Idempotent and resumable: a survey already done costs a few reads, and
// one left incomplete (writes that kept racing it) is listed, for another
// run.
func backfillPages(ctx context.Context, args []string, getenv func(string) string) (any, error) {
	fs := newFlags("pages backfill")
	one := fs.String("survey", "", "the survey's id")
	all := fs.Bool("all", false, "every survey")
	segments := fs.Int("segments", 4, "parallel Scan segments (--all)")
	if err := parse(fs, args, 0); err != nil {
		return nil, err
	}
	if (*one == "") == !*all {
		return nil, fmt.Errorf("%w: pages backfill needs --survey ID or --all", errUsage)
	}
	if *segments < 1 || *segments > 1000 {
		return nil, fmt.Errorf("%w: --segments must be 1..1000", errUsage)
	}
	var sid int64
	if *one != "" {
		id, err := strconv.ParseInt(*one, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("%w: --survey needs a positive survey id", errUsage)
		}
		sid = id
	}
	st, err := open(ctx, getenv)
	if err != nil {
		return nil, err
	}
	if sid != 0 {
		return st.BackfillPages(ctx, sid)
	}
	out := pagesAll{CodesIncomplete: []int64{}, CodesUnrepairable: []int64{}, ResponsesIncomplete: []int64{}}
	out.Scanned, err = st.EachSurveyID(ctx, *segments, func(id int64) error {
		r, err := st.BackfillPages(ctx, id)
		if err != nil {
			return fmt.Errorf("survey %d: %w", id, err)
		}
		out.Surveys++
		switch {
		case r.Codes.Unrepairable:
			out.CodesUnrepairable = append(out.CodesUnrepairable, id)
		case r.Codes.Complete || r.Codes.Codes == 0:
			out.CodesComplete++
		default:
			out.CodesIncomplete = append(out.CodesIncomplete, id)
		}
		if r.Responses.Complete {
			out.ResponsesComplete++
		} else {
			out.ResponsesIncomplete = append(out.ResponsesIncomplete, id)
		}
		return nil
	})
	return out, err
}
