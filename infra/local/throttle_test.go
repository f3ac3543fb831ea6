package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestCodeCheckRouteIsThrottled: the HTTP API's route settings name only
// routes the API has (API Gateway refuses to deploy a stage whose
// RouteSettings name a missing route key, and HTTP APIs create no route
// whose path ends in /), the public code check has a bucket of its own,
// tighter than the default, and no route is left unthrottled.
func TestCodeCheckRouteIsThrottled(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	routes := map[string]string{} // route key -> function
	for name, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		events, _ := res.Properties["Events"].(map[string]any)
		for _, ev := range events {
			ev := ev.(map[string]any)
			if ev["Type"] != "HttpApi" {
				continue
			}
			props := ev["Properties"].(map[string]any)
			routes[fmt.Sprintf("%v %v", props["Method"], props["Path"])] = name
		}
	}
	api := tpl.Resources["HttpApi"].Properties
	def, _ := api["DefaultRouteSettings"].(map[string]any)
	if def["ThrottlingRateLimit"] == nil || def["ThrottlingBurstLimit"] == nil {
		t.Fatalf("DefaultRouteSettings %v: every route needs a rate and a burst limit", def)
	}
	settings, _ := api["RouteSettings"].(map[string]any)
	throttled := false
	for key, v := range settings {
		fn, ok := routes[key]
		_, path, _ := strings.Cut(key, " ")
		switch {
		case !ok:
			t.Errorf("RouteSettings %q: no such route in the template", key)
		case strings.HasSuffix(path, "/"):
			t.Errorf("RouteSettings %q: HTTP APIs create no route whose path ends in /", key)
		}
		s := v.(map[string]any)
		rate, burst := number(s["ThrottlingRateLimit"]), number(s["ThrottlingBurstLimit"])
		if rate <= 0 || burst <= 0 || rate > number(def["ThrottlingRateLimit"]) || burst > number(def["ThrottlingBurstLimit"]) {
			t.Errorf("RouteSettings %q: rate %v, burst %v; want limits under the default's", key, s["ThrottlingRateLimit"], s["ThrottlingBurstLimit"])
		}
		if fn == "RespondersFunction" && strings.HasSuffix(path, "/authenticate") {
			throttled = true
		}
	}
	if !throttled {
		t.Errorf("the public code check has no route settings of its own (RouteSettings %v)", settings)
	}
}

func number(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	return 0
}
