// Package openapi is the OpenAPI 3.1 document of the whole API: the one
// source of truth for clients, served at GET /api/schema/, checked by
// openapi-spec-validator and against the functions' routes in `make test`,
// and held to every response the integration tests receive.
package openapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"gopkg.in/yaml.v3"
)

// YAML is the document as written.
//
//go:embed openapi.yaml
var YAML []byte

var (
	once    sync.Once
	asJSON  []byte
	jsonErr error
)

// JSON is the document as JSON, converted once.
func JSON() ([]byte, error) {
	once.Do(func() {
		var doc any
		if err := yaml.Unmarshal(YAML, &doc); err != nil {
			jsonErr = fmt.Errorf("openapi: parse: %w", err)
			return
		}
		asJSON, jsonErr = json.Marshal(stringKeys(doc))
	})
	return asJSON, jsonErr
}

// stringKeys makes YAML's maps JSON-encodable (keys such as 200 decode as
// integers).
func stringKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = stringKeys(x)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = stringKeys(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = stringKeys(x)
		}
	}
	return v
}
