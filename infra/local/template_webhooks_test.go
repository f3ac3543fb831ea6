package main

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"

	"surveyservice/shared/store"
)

// leadingKeys is, for each function whose table access is bounded by
// partition key, the key prefixes (dynamodb:LeadingKeys patterns) its
// reads and its writes may touch: nil reads means reads are not bounded
// by key (they need the index, or any survey's items). A function absent
// here has no LeadingKeys condition yet (see README, "Webhooks and the
// stream under failure": the owner groups are the gap).
var leadingKeys = map[string]struct{ reads, writes, deletes []string }{
	"RespondersFunction": {writes: []string{"SURVEY#*", "CODES#*", "GUESSES#*", "COUNTER#*", "RESPONSES#*", "LINK#*", "AGG#*", "DATAKEY*", "CHALLENGE#*", "RESPONDER#*", "VIEWLOG#*", "RATE#*"}},
	"PagesFunction":      {writes: []string{"SURVEY#*", "CODES#*", "GUESSES#*", "COUNTER#*", "RESPONSES#*", "LINK#*", "AGG#*", "DATAKEY*", "CHALLENGE#*", "RESPONDER#*", "VIEWLOG#*", "RATE#*"}},
	"ResponsesFunction":  {writes: []string{"RESPONSES#*", "SURVEY#*", "AGG#*", "COUNTER#*", "DATAKEY*"}, deletes: []string{"RESPONSES#*"}},
	"SweeperFunction":    {writes: []string{"SURVEY#*"}, deletes: []string{"SURVEY#*", "PENDING#*"}},
	"WebhooksFunction": {reads: []string{"APIKEY#*", "ACCOUNT#*", "SURVEY#*", "HOOKS#*", "DELIVERIES#*", "DATAKEY*"},
		writes: []string{"SURVEY#*", "HOOKS#*", "DELIVERIES#*", "COUNTER#*", "DATAKEY*"}},
	"DispatchFunction": {reads: []string{"HOOKS#*"}, writes: []string{"DELIVERIES#*"}},
	"DeliverFunction":  {reads: []string{"DELIVERIES#*", "HOOKS#*", "RESPONSES#*", "DATAKEY*"}, writes: []string{"DELIVERIES#*", "HOOKS#*"}},
	"RetrierFunction":  {writes: []string{"DELIVERIES#*"}},
}

// keyExamples are keys the store builds, one a prefix: each pattern above
// must match at least one, so that a renamed key cannot leave a policy
// naming a prefix no item has (and the function denied what it needs).
var keyExamples = []string{
	store.SurveyPK(1), store.CodesPK(1), store.GuessesPK(1), store.CounterPK("response", 0), store.ResponsesPK(1),
	store.LinkPK("t"), store.AggPK(1), store.DataKeyPK("k"), "DATAKEY", store.APIKeyPK("ab"), store.AccountPK(1),
	store.HooksPK(1), store.DeliveriesPK(1), store.EmailPK("a@b.c"), store.TemplatePK(1), store.SlugPK("s"), store.ReportPK("r"),
	store.PendingCopyPK(1), store.ChallengePK(1, "ab"), store.ResponderPK(1, "ab"), store.ViewLogPK(1, 0), store.RatePK("pages-s", "abc"),
}

// sensitive are prefixes no public (unauthenticated) function may write.
var sensitive = []string{store.AccountPK(1), store.APIKeyPK("ab"), store.EmailPK("a@b.c"), store.HooksPK(1), store.DeliveriesPK(1), store.TemplatePK(1)}

var (
	readActions  = []string{"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"}
	writeActions = []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}
)

// TestLeadingKeys reads the policies of template.yaml: for the functions
// of leadingKeys, every statement on the table's items carries a
// ForAllValues:StringLike dynamodb:LeadingKeys condition with exactly the
// prefixes listed; the public functions may write no account, API key,
// email, webhook, delivery or template item; and every prefix names keys
// the store makes.
func TestLeadingKeys(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	for name, want := range leadingKeys {
		res, ok := tpl.Resources[name]
		if !ok {
			t.Errorf("%s: not in template.yaml", name)
			continue
		}
		got := map[string][]string{} // action -> patterns
		bounded := map[string]bool{}
		for _, pol := range res.Properties["Policies"].([]any) {
			for _, st := range pol.(map[string]any)["Statement"].([]any) {
				st := st.(map[string]any)
				if !onTableItems(st["Resource"]) {
					continue
				}
				var patterns []string
				if cond, ok := st["Condition"].(map[string]any); ok {
					like, _ := cond["ForAllValues:StringLike"].(map[string]any)
					for _, p := range asList(like["dynamodb:LeadingKeys"]) {
						patterns = append(patterns, p.(string))
					}
				}
				for _, a := range asList(st["Action"]) {
					a := a.(string)
					got[a] = append(got[a], patterns...)
					bounded[a] = len(patterns) > 0
				}
			}
		}
		check := func(actions, wantPatterns []string) {
			for _, a := range actions {
				if _, used := got[a]; !used {
					continue
				}
				if wantPatterns == nil {
					continue
				}
				if !bounded[a] || !sameSet(got[a], wantPatterns) {
					t.Errorf("%s: %s on the table's items is bounded to %v, want %v", name, a, got[a], wantPatterns)
				}
			}
		}
		check(readActions, want.reads)
		check(writeActions, want.writes)
		check([]string{"dynamodb:DeleteItem"}, want.deletes)
		if _, deletes := got["dynamodb:DeleteItem"]; deletes && want.deletes == nil {
			t.Errorf("%s may delete items; the test lists no deletes for it", name)
		}
		if name == "RespondersFunction" || name == "PagesFunction" {
			for _, a := range writeActions {
				if !bounded[a] && got[a] != nil {
					t.Errorf("%s: %s unbounded", name, a)
				}
				for _, k := range sensitive {
					if matchesAny(got[a], k) {
						t.Errorf("%s (public) may %s on %s", name, a, k)
					}
				}
			}
		}
		for _, list := range [][]string{want.reads, want.writes, want.deletes} {
			for _, p := range list {
				if !slices.ContainsFunc(keyExamples, func(k string) bool { return like(p, k) }) {
					t.Errorf("%s: %s matches no key the store builds", name, p)
				}
			}
		}
	}
}

// onTableItems reports whether a statement's resources include the table
// itself (not only its indexes).
func onTableItems(resource any) bool {
	for _, r := range asList(resource) {
		if r == "Table.Arn" {
			return true
		}
	}
	return false
}

func asList(v any) []any {
	switch v := v.(type) {
	case []any:
		return v
	case nil:
		return nil
	default:
		return []any{v}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// like is IAM's StringLike for the patterns used here (* and ?).
func like(pattern, s string) bool {
	ok, err := path.Match(strings.ReplaceAll(pattern, "/", "\x00"), strings.ReplaceAll(s, "/", "\x00"))
	return err == nil && ok
}

func matchesAny(patterns []string, key string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return like(p, key) })
}

// TestAlarms reads the alarms of template.yaml: errors and throttles of
// every function, the dead-letter and failure queues, the delivery queues'
// age, the stream's IteratorAge and the API's 5xx, each notifying the
// AlarmTopicArn topic when it fires and when it clears.
func TestAlarms(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	type watch struct{ namespace, metric, dimension string }
	have := map[watch]bool{}
	for name, res := range tpl.Resources {
		if res.Type != "AWS::CloudWatch::Alarm" {
			continue
		}
		p := res.Properties
		for _, key := range []string{"AlarmActions", "OKActions"} {
			if acts := asList(p[key]); len(acts) != 1 || acts[0] != "AlarmTopicArn" {
				t.Errorf("%s: %s %v, want the AlarmTopicArn parameter", name, key, p[key])
			}
		}
		for _, d := range asList(p["Dimensions"]) {
			d := d.(map[string]any)
			have[watch{fmt.Sprint(p["Namespace"]), fmt.Sprint(p["MetricName"]), fmt.Sprint(d["Value"])}] = true
		}
	}
	var want []watch
	for name, res := range tpl.Resources {
		if res.Type == "AWS::Serverless::Function" {
			want = append(want, watch{"AWS/Lambda", "Errors", name}, watch{"AWS/Lambda", "Throttles", name})
		}
	}
	want = append(want,
		watch{"AWS/SQS", "ApproximateNumberOfMessagesVisible", "WebhookDeadLetterQueue.QueueName"},
		watch{"AWS/SQS", "ApproximateNumberOfMessagesVisible", "DispatchFailureQueue.QueueName"},
		watch{"AWS/SQS", "ApproximateAgeOfOldestMessage", "WebhookQueue.QueueName"},
		watch{"AWS/SQS", "ApproximateAgeOfOldestMessage", "WebhookSlowQueue.QueueName"},
		watch{"AWS/SQS", "ApproximateNumberOfMessagesVisible", "WebhookQueue.QueueName"},
		watch{"AWS/Lambda", "IteratorAge", "DispatchFunction"},
		watch{"AWS/ApiGateway", "5xx", "HttpApi"},
	)
	for _, w := range want {
		if !have[w] {
			t.Errorf("no alarm on %s %s of %s", w.namespace, w.metric, w.dimension)
		}
	}
}
