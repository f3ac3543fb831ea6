// Command lambda is the export function: run by the export queue, it
// writes each export job's CSV file or workbook to S3 in parts (functions/responses
// owns the file's columns; this is the same group's second entry point,
// with a 15 minute timeout instead of API Gateway's 30 s).
package main

import (
	"surveyservice/functions/responses"
	"surveyservice/functions/responses/workbook"
	"surveyservice/shared/exports"
	"surveyservice/shared/lambdamain"
)

func main() {
	lambdamain.MainEvents(func(env lambdamain.Env) (any, error) {
		e := responses.NewExporter(responses.ExporterDeps{
			Store:       env.Store,
			Exports:     exports.New(env.AWS, exports.BucketFromEnv(env.Getenv)),
			Workbook:    responses.Workbooks(workbook.New),
			MaxAttempts: exports.MaxReceives,
		})
		return e.Handle, nil
	})
}
