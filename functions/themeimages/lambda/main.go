// Command lambda is the themeimages function on Lambda: a theme's
// background image (contract section 22).
package main

import (
	"surveyservice/functions/themeimages"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
	"surveyservice/shared/backgrounds"
	"surveyservice/shared/lambdamain"
	"surveyservice/shared/uploads"
)

func main() {
	lambdamain.Main(func(env lambdamain.Env) (any, error) {
		images := backgrounds.Bucket{Bucket: uploads.New(env.AWS, uploads.BucketFromEnv(env.Getenv))}
		return gateway.New(themeimages.New(themeimages.Deps{Auth: api.NewAuthenticator(env.Store), Store: env.Store,
			MediaURL: env.Getenv("MEDIA_URL"), Backgrounds: images})), nil
	})
}
