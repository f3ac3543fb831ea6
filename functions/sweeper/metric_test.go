package sweeper_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"surveyservice/functions/sweeper"
)

func TestEmitMetric(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 15, 12, 5, 0, 123e6, time.UTC)
	var buf bytes.Buffer
	if err := sweeper.EmitMetric(&buf, sweeper.Result{Closed: 7, Read: 9, Complete: true}, at); err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("EmitMetric wrote %q, want one line", line)
	}
	var got struct {
		AWS struct {
			Timestamp         *int64 `json:"Timestamp"`
			CloudWatchMetrics []struct {
				Namespace  string     `json:"Namespace"`
				Dimensions [][]string `json:"Dimensions"`
				Metrics    []struct {
					Name string `json:"Name"`
					Unit string `json:"Unit"`
				} `json:"Metrics"`
			} `json:"CloudWatchMetrics"`
		} `json:"_aws"`
	}
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatalf("EmitMetric wrote %q: %v", line, err)
	}
	var top map[string]any
	if err := json.Unmarshal([]byte(line), &top); err != nil {
		t.Fatal(err)
	}
	if got.AWS.Timestamp == nil || *got.AWS.Timestamp != at.UnixMilli() {
		t.Errorf("_aws.Timestamp %v, want %d", got.AWS.Timestamp, at.UnixMilli())
	}
	if len(got.AWS.CloudWatchMetrics) != 1 {
		t.Fatalf("_aws.CloudWatchMetrics %+v, want one directive", got.AWS.CloudWatchMetrics)
	}
	d := got.AWS.CloudWatchMetrics[0]
	if d.Namespace != "SurveyService" {
		t.Errorf("Namespace %q, want SurveyService", d.Namespace)
	}
	found := false
	for _, m := range d.Metrics {
		// EMF: every metric named is a top-level number of the line.
		if _, ok := top[m.Name].(float64); !ok {
			t.Errorf("metric %s has no numeric top-level value in %s", m.Name, line)
		}
		if m.Name == "SurveysClosed" {
			found = true
			if m.Unit != "Count" {
				t.Errorf("SurveysClosed unit %q, want Count", m.Unit)
			}
		}
	}
	if !found {
		t.Errorf("metrics %+v lack SurveysClosed", d.Metrics)
	}
	if top["SurveysClosed"] != float64(7) {
		t.Errorf("SurveysClosed = %v, want 7", top["SurveysClosed"])
	}
	// EMF: every dimension key is a top-level string of the line.
	for _, set := range d.Dimensions {
		for _, k := range set {
			if _, ok := top[k].(string); !ok {
				t.Errorf("dimension %s has no string value in %s", k, line)
			}
		}
	}
}
