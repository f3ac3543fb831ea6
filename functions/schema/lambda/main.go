// Command lambda is the schema function on Lambda: the OpenAPI document.
package main

import (
	"os"

	"surveyservice/functions/schema"
	"surveyservice/shared/api"
	"surveyservice/shared/api/gateway"
)

func main() {
	api.JSONLogging(os.Stdout)
	gateway.Start(schema.New())
}
