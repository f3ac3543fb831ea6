package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"surveyservice/functions/dispatch"
	"surveyservice/functions/tally"
	"surveyservice/internal/routing"
	"surveyservice/shared/store"
	"surveyservice/shared/webhook"
)

func loadTemplate(t *testing.T) samTemplate {
	t.Helper()
	data, err := os.ReadFile("../../template.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := parseTemplate(data)
	if err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	return tpl
}

// templateRoutes lists the HttpApi events of template.yaml's functions as
// routes targeting each function's logical id, as `make run` reads them.
func templateRoutes(t *testing.T, tpl samTemplate) []routing.Route {
	t.Helper()
	routes, err := tpl.httpRoutes()
	if err != nil {
		t.Error(err)
	}
	return routes
}

// makefileFunctions reads the Makefile's LOGICAL_IDS and FUNCTIONS: each
// function's logical id in template.yaml and its directory, in one order.
func makefileFunctions(t *testing.T) (logical, dirs []string) {
	t.Helper()
	data, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	ids := regexp.MustCompile(`(?m)^LOGICAL_IDS := (.*)$`).FindSubmatch(data)
	fns := regexp.MustCompile(`(?m)^FUNCTIONS := (.*)$`).FindSubmatch(data)
	if ids == nil || fns == nil {
		t.Fatal("Makefile lacks FUNCTIONS or LOGICAL_IDS")
	}
	logical, dirs = strings.Fields(string(ids[1])), strings.Fields(string(fns[1]))
	if len(logical) != len(dirs) {
		t.Fatalf("FUNCTIONS and LOGICAL_IDS differ in length")
	}
	return logical, dirs
}

// TestMakefileBuildsEveryFunction checks that `sam build` finds a Makefile
// target for every function of template.yaml.
func TestMakefileBuildsEveryFunction(t *testing.T) {
	t.Parallel()
	logical, _ := makefileFunctions(t)
	tpl := loadTemplate(t)
	var functions []string
	for name, res := range tpl.Resources {
		if res.Type == "AWS::Serverless::Function" {
			functions = append(functions, name)
			if res.Metadata["BuildMethod"] != "makefile" {
				t.Errorf("%s: BuildMethod %v, want makefile", name, res.Metadata["BuildMethod"])
			}
		}
	}
	sort.Strings(functions)
	sort.Strings(logical)
	if !slices.Equal(functions, logical) {
		t.Errorf("template.yaml functions %v, Makefile LOGICAL_IDS %v", functions, logical)
	}
}

// TestTableMatchesDefinition holds the deployed table and the one that tests
// and `make run` create to the same keys and indexes.
func TestTableMatchesDefinition(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	table := tpl.Resources["Table"]
	if table.Type != "AWS::DynamoDB::Table" {
		t.Fatal("template.yaml has no Table")
	}
	if table.DeletionPolicy != "Retain" {
		t.Errorf("DeletionPolicy %q, want Retain", table.DeletionPolicy)
	}
	p := table.Properties
	def := store.TableDefinition("x")
	if p["BillingMode"] != string(def.BillingMode) {
		t.Errorf("BillingMode %v, want %s", p["BillingMode"], def.BillingMode)
	}
	if p["DeletionProtectionEnabled"] != true {
		t.Error("deletion protection is off")
	}
	if pitr, _ := p["PointInTimeRecoverySpecification"].(map[string]any); pitr["PointInTimeRecoveryEnabled"] != true {
		t.Error("point-in-time recovery is off")
	}
	if ttl, _ := p["TimeToLiveSpecification"].(map[string]any); ttl["AttributeName"] != store.AttrTTL || ttl["Enabled"] != true {
		t.Errorf("TTL %v, want %s enabled", ttl, store.AttrTTL)
	}
	if stream, _ := p["StreamSpecification"].(map[string]any); def.StreamSpecification == nil ||
		stream["StreamViewType"] != string(def.StreamSpecification.StreamViewType) {
		t.Errorf("stream %v, want %v", stream, def.StreamSpecification)
	}
	var attrs []string
	for _, a := range p["AttributeDefinitions"].([]any) {
		a := a.(map[string]any)
		attrs = append(attrs, a["AttributeName"].(string)+":"+a["AttributeType"].(string))
	}
	var wantAttrs []string
	for _, a := range def.AttributeDefinitions {
		wantAttrs = append(wantAttrs, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	if !slices.Equal(attrs, wantAttrs) {
		t.Errorf("attributes %v, want %v", attrs, wantAttrs)
	}
	keys := func(v any) string {
		var parts []string
		for _, k := range v.([]any) {
			k := k.(map[string]any)
			parts = append(parts, k["AttributeName"].(string)+":"+k["KeyType"].(string))
		}
		return strings.Join(parts, ",")
	}
	wantKeys := func(ks []string) string { return strings.Join(ks, ",") }
	if got, want := keys(p["KeySchema"]), wantKeys([]string{store.AttrPK + ":HASH", store.AttrSK + ":RANGE"}); got != want {
		t.Errorf("key schema %s, want %s", got, want)
	}
	var gsis []string
	for _, g := range p["GlobalSecondaryIndexes"].([]any) {
		g := g.(map[string]any)
		proj := g["Projection"].(map[string]any)["ProjectionType"]
		gsis = append(gsis, g["IndexName"].(string)+"("+keys(g["KeySchema"])+")"+proj.(string))
	}
	var wantGSIs []string
	for _, g := range def.GlobalSecondaryIndexes {
		var parts []string
		for _, k := range g.KeySchema {
			parts = append(parts, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
		}
		wantGSIs = append(wantGSIs, aws.ToString(g.IndexName)+"("+strings.Join(parts, ",")+")"+string(g.Projection.ProjectionType))
	}
	if !slices.Equal(gsis, wantGSIs) {
		t.Errorf("indexes %v, want %v", gsis, wantGSIs)
	}
}

// teamsActions are what every owner function calls for teams (contract
// section 19): a member's key (BatchGetItem of account and member) and the
// activity log's entry of a successful write (BatchWriteItem).
var teamsActions = []string{"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:PutItem"} // PutItem: the entry in store.runTx

// allowedActions is each function's least privilege: what its code calls.
var allowedActions = map[string][]string{
	"TemplatesFunction": {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem"},
	"AccountFunction": append(append([]string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}, // members, their keys, the activity log
		teamsActions...), tenantActions...),
	"FoldersFunction": append([]string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}, teamsActions...),
	"SurveysFunction": append([]string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem",
		"dynamodb:BatchWriteItem", "dynamodb:DeleteItem", // a copy's batches, and their clean-up when it fails
		"s3:DeleteObject"}, teamsActions...), // a deleted theme's background image (section 22)
	"ThemeImagesFunction": {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:BatchWriteItem",
		"s3:PutObject", "s3:PutObjectTagging", "s3:GetObject", "s3:DeleteObject"}, // a theme's background image (section 22)
	"ElementsFunction": append([]string{"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem",
		"dynamodb:ConditionCheckItem"}, teamsActions...), // a member's share (store.runTx)
	"SettingsFunction": append([]string{"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:UpdateItem",
		"dynamodb:ConditionCheckItem", "dynamodb:PutItem", "dynamodb:DeleteItem"}, teamsActions...),
	"RespondersFunction": {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:PutItem",
		"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", // a withdrawal (store/fence.go), an edit's guard (store/edit.go)
		"kms:GenerateDataKey", "kms:Decrypt",
		"s3:PutObject", "s3:PutObjectTagging", "s3:GetObject", "s3:DeleteObject",
		"ses:SendEmail", "sns:Publish"}, // sign-in codes (section 18)
	"PagesFunction": {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:PutItem",
		"dynamodb:ConditionCheckItem", "dynamodb:DeleteItem", // the plain form's withdrawal (store/fence.go)
		"kms:GenerateDataKey", "kms:Decrypt",
		"s3:GetObject"}, // the themes' background images (section 22)
	"VariablesFunction": append([]string{"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
		"dynamodb:ConditionCheckItem", "kms:GenerateDataKey", "kms:Decrypt"}, teamsActions...),
	"ResponsesFunction": append([]string{"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem",
		"dynamodb:DeleteItem", "kms:GenerateDataKey", "kms:Decrypt", "s3:PutObject", "s3:GetObject", "s3:AbortMultipartUpload",
		"s3:DeleteObject", "sqs:SendMessage", "dynamodb:ConditionCheckItem"}, teamsActions...), // a member's share (store.runTx)
	"TallyFunction":   {"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:Query", "dynamodb:DeleteItem", "sqs:SendMessage"}, // Query: the page index (RPAGES#) and the partial count items
	"ExportsFunction": {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem", "s3:PutObject", "s3:AbortMultipartUpload"},
	"SweeperFunction": {"dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:BatchWriteItem", "dynamodb:DeleteItem", // and dead copies
		"dynamodb:GetItem", "dynamodb:PutItem", "sqs:SendMessage", "ses:SendEmail", // a suspended domain's notice (section 23)
		"cloudfront:CreateDistributionTenant", "cloudfront:GetDistributionTenant", "cloudfront:UpdateDistributionTenant", "cloudfront:DeleteDistributionTenant"},
	"SchemaFunction": {}, // serves an embedded document: no AWS access at all
	"WebhooksFunction": append([]string{"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem",
		"dynamodb:ConditionCheckItem", "kms:GenerateDataKey", "kms:Decrypt", "sqs:SendMessage"}, teamsActions...),
	"DispatchFunction": {"dynamodb:GetItem", "dynamodb:PutItem", "sqs:SendMessage", "s3:DeleteObjectTagging", // and keeps the files of responses
		"dynamodb:Query", "dynamodb:BatchGetItem", // survey.full: the survey's caps and every allowance
		"dynamodb:DeleteItem", "dynamodb:UpdateItem"}, // a withdrawal its request ran out of time for (store.FinishWithdrawal)
	"DeliverFunction": {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:UpdateItem", "kms:Decrypt", "sqs:SendMessage",
		"dynamodb:Query",                // a probe's success resumes the webhook's paused deliveries (PAUSED# in GSI1)
		"ses:SendEmail", "sns:Publish"}, // email and SMS notifications (section 21)
	"RetrierFunction": {"dynamodb:Query", "dynamodb:UpdateItem", "sqs:SendMessage"},
}

// tenantActions are the CloudFront calls of shared/cdn: a verified custom
// domain's distribution tenant, made and removed (contract section 23).
var tenantActions = []string{"cloudfront:CreateDistributionTenant", "cloudfront:GetDistributionTenant",
	"cloudfront:UpdateDistributionTenant", "cloudfront:DeleteDistributionTenant"}

// tenantsOnly reports whether a statement allows the tenant calls alone,
// on tenants (whose ids CloudFront makes: a prefix is all a grant can
// name) and the custom domains' distribution.
func tenantsOnly(st map[string]any) bool {
	acts, _ := st["Action"].([]any)
	for _, a := range acts {
		if !slices.Contains(tenantActions, fmt.Sprint(a)) {
			return false
		}
	}
	res, _ := st["Resource"].([]any)
	for _, r := range res {
		if s, ok := r.(string); ok && strings.Contains(s, "*") && !strings.HasSuffix(s, ":distribution-tenant/*") {
			return false
		}
	}
	return len(acts) > 0
}

// s3Prefixes are the only S3 resources a function may reach: each
// bucket's prefix, where its lifecycle rule applies; the themes' uploads
// (under uploads/, the same rule) and their sizes (media/themes/, kept
// while a theme names them, contract section 22).
var s3Prefixes = map[string]bool{"${ExportsBucket.Arn}/exports/*": true, "${UploadsBucket.Arn}/uploads/*": true,
	"${UploadsBucket.Arn}/uploads/themes/*": true, "${UploadsBucket.Arn}/media/themes/*": true}

// snsTopics is the Deny that makes an Allow of sns:Publish on * mean "to
// phone numbers only": Publish to a number has no resource ARN.
const snsTopics = "arn:${AWS::Partition}:sns:*:*:*"

// smsOnly reports whether a statement is the SMS idiom: Allow sns:Publish
// on * beside a Deny of it on every topic (denied), or that Deny.
func smsOnly(st map[string]any, deniesTopics bool) bool {
	acts, _ := st["Action"].([]any)
	if len(acts) != 1 || acts[0] != "sns:Publish" {
		return false
	}
	switch st["Effect"] {
	case "Allow":
		return st["Resource"] == "*" && deniesTopics
	case "Deny":
		return st["Resource"] == snsTopics
	}
	return false
}

// TestLeastPrivilege reads every function's inline policy: only the actions
// its code needs, never a wildcard action or resource (but SMS's idiom:
// sns:Publish allowed on * and denied on every topic), never a Scan; SES
// only on the MAIL_FROM identity.
func TestLeastPrivilege(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	for name, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		allowed, ok := allowedActions[name]
		if !ok {
			t.Errorf("%s: no least-privilege entry in this test", name)
			continue
		}
		policies, _ := res.Properties["Policies"].([]any)
		if len(policies) == 0 && len(allowed) > 0 {
			t.Errorf("%s: no policy", name)
		}
		var granted []string
		deniesTopics := false
		for _, pol := range policies {
			if doc, ok := pol.(map[string]any); ok {
				for _, st := range doc["Statement"].([]any) {
					deniesTopics = deniesTopics || smsOnly(st.(map[string]any), false) && st.(map[string]any)["Effect"] == "Deny"
				}
			}
		}
		for _, pol := range policies {
			doc, ok := pol.(map[string]any)
			if !ok {
				t.Errorf("%s: policy %v is a managed or SAM template policy; write statements", name, pol)
				continue
			}
			for _, st := range doc["Statement"].([]any) {
				st := st.(map[string]any)
				if smsOnly(st, deniesTopics) {
					granted = append(granted, "sns:Publish")
					continue
				}
				actions := st["Action"]
				if s, ok := actions.(string); ok {
					actions = []any{s}
				}
				for _, a := range actions.([]any) {
					a := a.(string)
					granted = append(granted, a)
					if strings.Contains(a, "*") || !slices.Contains(allowed, a) {
						t.Errorf("%s may %s; it needs only %v", name, a, allowed)
					}
					if strings.HasPrefix(a, "s3:") && !s3Prefixes[fmt.Sprint(st["Resource"])] {
						// S3 only on the export files and the uploads.
						t.Errorf("%s may %s on %v; want the exports bucket's exports/ or the uploads bucket's uploads/ only", name, a, st["Resource"])
					}
					if a == "ses:SendEmail" && !strings.Contains(fmt.Sprint(st["Resource"]), ":identity/${MailFrom}") {
						t.Errorf("%s may %s on %v; want the MailFrom identity only", name, a, st["Resource"])
					}
					if a == "sns:Publish" {
						t.Errorf("%s may sns:Publish on %v; want phone numbers only (Allow on *, Deny on %s)", name, st["Resource"], snsTopics)
					}
					if strings.HasPrefix(a, "kms:") {
						// KMS only on the links key, only with the links' context.
						cond, _ := st["Condition"].(map[string]any)
						eq, _ := cond["StringEquals"].(map[string]any)
						if st["Resource"] != "LinksKey.Arn" || eq["kms:EncryptionContext:purpose"] != "survey-links" {
							t.Errorf("%s may %s on %v with condition %v; want the links key and purpose=survey-links", name, a, st["Resource"], cond)
						}
					}
				}
				// The table's indexes, and the export files under their prefix
				// (checked above), are the only wildcards.
				if res := fmt.Sprint(st["Resource"]); strings.Contains(res, "*") && !strings.Contains(res, "/index/*") && !s3Prefixes[res] && !tenantsOnly(st) {
					t.Errorf("%s: a statement on %s", name, res)
				}
				if st["Resource"] == "*" {
					t.Errorf("%s: a statement on Resource *", name)
				}
			}
		}
		for _, a := range allowed {
			if !slices.Contains(granted, a) {
				t.Errorf("%s lacks %s, which its code calls", name, a)
			}
		}
	}
}

// TestStreamFilterMatchesTally holds the tally's stream filter in
// template.yaml to the one the tally function (and the tests) apply.
func TestStreamFilterMatchesTally(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	ev := tpl.Resources["TallyFunction"].Properties["Events"].(map[string]any)["SubmittedResponses"].(map[string]any)["Properties"].(map[string]any)
	filters := ev["FilterCriteria"].(map[string]any)["Filters"].([]any)
	var patterns []string
	for _, f := range filters {
		p, _ := f.(map[string]any)["Pattern"].(string)
		patterns = append(patterns, p)
	}
	if !slices.Equal(patterns, tally.FilterPatterns) {
		t.Errorf("template.yaml filters %q, tally.FilterPatterns are %q", patterns, tally.FilterPatterns)
	}
	if ev["StartingPosition"] != "TRIM_HORIZON" || ev["TumblingWindowInSeconds"] == nil ||
		ev["MaximumRecordAgeInSeconds"] != int(store.TallyMaxRecordAge/time.Second) {
		t.Errorf("stream event source %v: want TRIM_HORIZON, a tumbling window (the shard id) and a record age of %v (the checkpoints' pruning)", ev, store.TallyMaxRecordAge)
	}
}

// TestStreamFilterMatchesDispatch holds the stream event source's filter in
// template.yaml to the one the dispatch function (and `make run`) applies.
func TestStreamFilterMatchesDispatch(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	ev := tpl.Resources["DispatchFunction"].Properties["Events"].(map[string]any)["NewResponses"].(map[string]any)["Properties"].(map[string]any)
	filters := ev["FilterCriteria"].(map[string]any)["Filters"].([]any)
	want := []string{dispatch.FilterPattern, dispatch.PartialFilterPattern, dispatch.CapFilterPattern, dispatch.WithdrawFilterPattern}
	var got []string
	for _, f := range filters {
		p, _ := f.(map[string]any)["Pattern"].(string)
		got = append(got, p)
	}
	if !slices.Equal(got, want) {
		t.Errorf("template.yaml filters %q, dispatch's are %q (FilterPattern, PartialFilterPattern, CapFilterPattern, WithdrawFilterPattern)", got, want)
	}
	if ev["StartingPosition"] != "TRIM_HORIZON" || ev["BisectBatchOnFunctionError"] != true ||
		ev["MaximumRetryAttempts"] != StreamMaxRetries || ev["MaximumRecordAgeInSeconds"] != int(StreamMaxRecordAge/time.Second) ||
		!slices.Contains(ev["FunctionResponseTypes"].([]any), any("ReportBatchItemFailures")) {
		t.Errorf("stream event source %v: want bounded retries (%d), bisection, a record age of %v and partial batch responses, as make run has them",
			ev, StreamMaxRetries, StreamMaxRecordAge)
	}
	q := tpl.Resources["WebhookQueue"].Properties["RedrivePolicy"].(map[string]any)
	if q["maxReceiveCount"] != webhook.MaxReceives {
		t.Errorf("maxReceiveCount %v, want %d", q["maxReceiveCount"], webhook.MaxReceives)
	}
}

// TestAPIBaseURLWhereLinksAreWritten: every function whose main reads
// API_BASE_URL (api.BaseURLFromEnv: it writes absolute URLs and does not
// start without it) has it in its environment in template.yaml, and no
// other function has it.
func TestAPIBaseURLWhereLinksAreWritten(t *testing.T) {
	t.Parallel()
	logical, dirs := makefileFunctions(t)
	tpl := loadTemplate(t)
	readers := 0
	for i, dir := range dirs {
		main, err := os.ReadFile("../../functions/" + dir + "/lambda/main.go")
		if err != nil {
			t.Fatal(err)
		}
		// The base URL writes links; a function serving by host takes the
		// service's own host from it (hosts.New, contract section 23).
		reads := strings.Contains(string(main), "api.BaseURLFromEnv(") || strings.Contains(string(main), "hosts.New(hosts.ConfigFromEnv(")
		env, _ := tpl.Resources[logical[i]].Properties["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		_, set := vars["API_BASE_URL"]
		if reads != set {
			t.Errorf("%s: its main reads API_BASE_URL %v, template.yaml sets it %v", logical[i], reads, set)
		}
		if reads {
			readers++
		}
	}
	if readers < 5 {
		t.Errorf("%d functions read API_BASE_URL, want the 5 that write links (templates, settings, responses, webhooks, pages)", readers)
	}
}

// TestViewsWriteOnlyTheirCount: the public functions that count views
// (store.CountView) may write on SURVEY#* only the views item's count and
// token sets (dynamodb:Attributes, equal to store.ViewsAttrs), returning
// nothing: never a survey, its GSI1 keys or its settings.
func TestViewsWriteOnlyTheirCount(t *testing.T) {
	t.Parallel()
	tpl := loadTemplate(t)
	for _, fn := range []string{"RespondersFunction", "PagesFunction"} {
		found := 0
		policies, _ := tpl.Resources[fn].Properties["Policies"].([]any)
		for _, pol := range policies {
			doc, ok := pol.(map[string]any)
			if !ok {
				continue
			}
			for _, st := range doc["Statement"].([]any) {
				st := st.(map[string]any)
				cond, _ := st["Condition"].(map[string]any)
				like, _ := cond["ForAllValues:StringLike"].(map[string]any)
				keys := asList(like["dynamodb:LeadingKeys"])
				if !slices.Contains(keys, any("SURVEY#*")) || !slices.ContainsFunc(asList(st["Action"]), func(a any) bool {
					return slices.Contains(writeActions, fmt.Sprint(a))
				}) {
					continue
				}
				found++
				var attrs []string
				eq, _ := cond["ForAllValues:StringEquals"].(map[string]any)
				for _, a := range asList(eq["dynamodb:Attributes"]) {
					attrs = append(attrs, fmt.Sprint(a))
				}
				rv, _ := cond["StringEqualsIfExists"].(map[string]any)
				if len(keys) != 1 || !slices.Equal(asList(st["Action"]), []any{"dynamodb:UpdateItem"}) || !slices.Equal(attrs, store.ViewsAttrs()) ||
					!slices.Equal(asList(rv["dynamodb:ReturnValues"]), []any{"NONE"}) {
					t.Errorf("%s writes on SURVEY#*: %v; want UpdateItem of attributes %v only (on SURVEY#* alone), ReturnValues NONE", fn, st, store.ViewsAttrs())
				}
			}
		}
		if found != 1 {
			t.Errorf("%s: %d statements write on SURVEY#*, want the views' one", fn, found)
		}
	}
}
