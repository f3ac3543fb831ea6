package store

import (
	"context"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// ResponseFilesScan is what a scan of the responses' files found.
type ResponseFilesScan struct {
	Scanned   int `json:"scanned"`
	Responses int `json:"responses"`
	Files     int `json:"files"`
}

// ResponseFiles calls fn with the files (AttrFiles) of every response
// submitted or edited at or after since: the operator's repair when the
// stream gave records up before the dispatch kept their files (admin
// keep-files). A parallel Scan of the table (segments at once) filtered
// to responses that carry files; never on a request's path. fn is called
// for one response at a time.
func (s *Store) ResponseFiles(ctx context.Context, since time.Time, segments int, fn func(ctx context.Context, keys []string) error) (ResponseFilesScan, error) {
	var out ResponseFilesScan
	var sm dynamo.ScanMetrics
	from := since.UTC().Format(survey.TimestampLayout)
	it := s.table.Scan().
		Filter("begins_with($, ?) AND attribute_exists($) AND ($ >= ? OR $ >= ?)", AttrSK, responseSKPrefix, AttrFiles, "submitted_at", from, "edited_at", from).
		Project(AttrFiles).ScanMetrics(&sm).
		IterParallel(ctx, max(segments, 1))
	var item struct {
		Files []string `dynamo:"files,set"`
	}
	for it.Next(ctx, &item) {
		out.Responses++
		out.Files += len(item.Files)
		if err := fn(ctx, item.Files); err != nil {
			return out, err
		}
		item.Files = nil
	}
	out.Scanned = int(sm.Scanned)
	if err := it.Err(); err != nil {
		return out, s.fail("scan for the responses' files", err)
	}
	return out, nil
}
