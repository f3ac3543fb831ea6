// Package seed ships the sample data that `make run` loads.
package seed

import _ "embed"

// Templates is the sample template catalog, in the import format of
// `admin templates import`.
//
//go:embed templates.json
var Templates []byte
