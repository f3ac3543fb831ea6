package main

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/store"
)

// keyExamples are keys the store builds, one a prefix, of the table and of
// its indexes: each LeadingKeys pattern of template.yaml must match at
// least one, so that a renamed key cannot leave a policy naming a prefix
// no item has (and the function denied what it needs).
var keyExamples = []string{
	store.SurveyPK(1), store.CodesPK(1), store.PhonesPK(1), store.GuessesPK(1), store.CounterPK("response", 0), store.ResponsesPK(1),
	store.LinkPK("t"), store.AggPK(1), store.DataKeyPK("k"), "DATAKEY", store.APIKeyPK("ab"), store.AccountPK(1),
	store.HooksPK(1), store.DeliveriesPK(1), store.EmailPK("a@b.c"), store.TemplatePK(1), store.SlugPK("s"), store.ReportPK("r"), store.PreviewPK("p"),
	store.PendingCopyPK(1), "CATALOG", store.ActivityPK(1), store.AccountHooksKey(1),
	// index partitions
	store.ResponderPK(1, "h"), store.SessionPK(1, "h"), store.ChallengePK(1, "s"), store.ViewLogPK(1, 0), store.ExportsPK(1), store.TallyPK(1),
	store.RatePK("pages-s", "abc"), store.BudgetPK("notify-survey", "1"), store.ResponsePagesPK(1),
	store.CapPK(1, 0), store.VerificationPK(1, "ab"), store.SubdomainPK("acme"), store.DomainPK("surveys.example.com"), store.TargetPK("t1"), "DOMAINS#CHECK", store.PartialEntryPK(1, 0),
	// index partitions
	store.OwnerKey(1), store.TemplateSlugKey("s"), store.ExpiryKey(1), store.CatalogKey, store.ResponseTimeShardKey(1, 3),
	store.DueKey(0), store.PendingCopyKey(1), store.HookedKey(1), store.PausedKey(1, 1), store.PartialsKey(1, 0),
}

// sensitive are prefixes no public (unauthenticated) function may write.
var sensitive = []string{store.AccountPK(1), store.APIKeyPK("ab"), store.EmailPK("a@b.c"), store.HooksPK(1), store.DeliveriesPK(1), store.TemplatePK(1)}

// publicFunctions answer without an API key.
var publicFunctions = []string{"RespondersFunction", "PagesFunction", "TemplatesFunction"}

var writeActions = []string{"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"}

// statement is one Allow statement of a function's policies on the table
// or its indexes.
type statement struct {
	actions      []string
	table, index bool     // its resources: the table's items, the indexes
	patterns     []string // its ForAllValues:StringLike dynamodb:LeadingKeys
}

// policy is a function's statements on the table and its indexes.
type policy []statement

// allows reports whether IAM would allow the access: a statement with its
// action on its resource (the table, or the index a Query reads) whose
// LeadingKeys patterns match its partition key (the table's, or for a
// Query of an index the index's).
func (p policy) allows(a awsenv.Access) bool {
	_, _, ok := p.allowedBy(a)
	return ok
}

// allowedBy answers the first statement (its index) and pattern that
// allow the access.
func (p policy) allowedBy(a awsenv.Access) (int, string, bool) {
	for i, s := range p {
		if !slices.Contains(s.actions, a.Action) {
			continue
		}
		if (a.Index == "" && !s.table) || (a.Index != "" && !s.index) {
			continue
		}
		for _, pat := range s.patterns {
			if a.Key != "" && like(pat, a.Key) {
				return i, pat, true
			}
		}
	}
	return 0, "", false
}

// grants reports whether a statement allows action with pattern among
// its LeadingKeys patterns, as written.
func (p policy) grants(action, pattern string) bool {
	for _, s := range p {
		if slices.Contains(s.actions, action) && slices.Contains(s.patterns, pattern) {
			return true
		}
	}
	return false
}

// tablePolicy reads a function's statements on the table and its indexes
// from template.yaml. CloudFormation's tags decode as their plain values:
// !GetAtt Table.Arn is "Table.Arn", the indexes' !Sub a list whose first
// element ends in /index/*.
func tablePolicy(t *testing.T, tpl samTemplate, name string) policy {
	t.Helper()
	res, ok := tpl.Resources[name]
	if !ok {
		t.Fatalf("%s: not in template.yaml", name)
	}
	var out policy
	pols, _ := res.Properties["Policies"].([]any)
	for _, pol := range pols {
		doc, _ := pol.(map[string]any)
		sts, _ := doc["Statement"].([]any)
		for _, st := range sts {
			st := st.(map[string]any)
			var s statement
			for _, r := range asList(st["Resource"]) {
				switch r := r.(type) {
				case string:
					s.table = s.table || r == "Table.Arn"
				case []any:
					if len(r) > 0 && strings.HasSuffix(fmt.Sprint(r[0]), "/index/*") {
						s.index = true
					}
				}
			}
			if !s.table && !s.index {
				continue
			}
			for _, a := range asList(st["Action"]) {
				s.actions = append(s.actions, a.(string))
			}
			if cond, ok := st["Condition"].(map[string]any); ok {
				like, _ := cond["ForAllValues:StringLike"].(map[string]any)
				for _, p := range asList(like["dynamodb:LeadingKeys"]) {
					s.patterns = append(s.patterns, p.(string))
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// TestLeadingKeys reads the policies of template.yaml: every function with
// access to the table or its indexes has a ForAllValues:StringLike
// dynamodb:LeadingKeys condition on every statement (none may Scan); the
// public functions write no account, API key, email, webhook, delivery or
// template item; and every prefix names keys the store makes.
// TestLeadingKeysTraffic holds the code to these lists.
func TestLeadingKeys(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	var withTable []string
	for name, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		pol := tablePolicy(t, tpl, name)
		if len(pol) == 0 {
			continue
		}
		withTable = append(withTable, name)
		for _, s := range pol {
			if len(s.patterns) == 0 {
				t.Errorf("%s: %v on the table or its indexes without a dynamodb:LeadingKeys condition", name, s.actions)
			}
			if slices.Contains(s.actions, "dynamodb:Scan") || slices.Contains(s.actions, "dynamodb:*") {
				t.Errorf("%s may %v: a Scan reads every partition, whatever the leading keys", name, s.actions)
			}
			for _, p := range s.patterns {
				if !slices.ContainsFunc(keyExamples, func(k string) bool { return like(p, k) }) {
					t.Errorf("%s: %s matches no key the store builds", name, p)
				}
			}
			if slices.Contains(publicFunctions, name) && s.table {
				for _, a := range writeActions {
					if !slices.Contains(s.actions, a) {
						continue
					}
					for _, k := range sensitive {
						if matchesAny(s.patterns, k) {
							t.Errorf("%s (public) may %s on %s", name, a, k)
						}
					}
				}
			}
		}
	}
	if len(withTable) < 2 {
		t.Errorf("only %v have table access: the policies were not read", withTable)
	}
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
