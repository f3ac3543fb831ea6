// Command lambda is the surveys function on Lambda.
package main

import (
	"time"

	"surveyservice/functions/surveys"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/backgrounds"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/uploads"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		// A deleted theme's background image files go with it (contract section 22).
		files := backgrounds.Bucket{Bucket: uploads.New(env.AWS, uploads.BucketFromEnv(env.Getenv))}
		return gateway.New(surveys.New(surveys.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store, Now: time.Now, MediaURL: env.Getenv("MEDIA_URL"),
			Files: files})), nil
	})
}
