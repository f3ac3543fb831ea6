// Package surveyservice holds the service's AWS SAM template, embedded, so
// that the local server (infra/local) takes its routes from template.yaml
// itself, whatever directory it is run from.
package surveyservice

import _ "embed"

// Template is template.yaml, the one source of the API's routes.
//
//go:embed template.yaml
var Template []byte
