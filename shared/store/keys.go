// Package store is the service's one DynamoDB table: its key design, its
// creation, and typed reads and writes of every entity. It uses
// github.com/guregu/dynamo directly; there is no generic repository layer.
//
// # Key design
//
// One table, string keys PK and SK, two overloaded global secondary indexes
// (GSI1PK/GSI1SK and GSI2PK/GSI2SK, both projecting all attributes) and a TTL
// attribute "expires_at". Numbers in sort keys are zero-padded to 20 digits
// so that byte order is numeric order.
//
//	Entity               PK                    SK                GSI1PK / GSI1SK                 GSI2PK / GSI2SK
//	account              ACCOUNT#<aid>         ACCOUNT
//	email guard          EMAIL#<lower email>   EMAIL
//	API key              APIKEY#<sha256 hex>   APIKEY
//	id counter shard     COUNTER#<kind>#<n>    COUNTER
//	template             TEMPLATE#<tid>        TEMPLATE          TSLUG#<slug> / TEMPLATE         CATALOG / <desc score>#<tid>
//	folder               ACCOUNT#<aid>         FOLDER#<fid>      OWNER#<aid> / F#<fid>
//	survey               SURVEY#<sid>          SURVEY            OWNER#<aid> / F#<fid>#S#<sid>   EXPIRY#<hash(sid) mod 8> / <date>#<sid>
//	survey slug          SLUG#<url_slug>       SLUG
//	element layout       SURVEY#<sid>          LAYOUT            (ordered id lists, groups, element sizes; version)
//	element              SURVEY#<sid>          ELEMENT#<eid>
//	survey settings      SURVEY#<sid>          SETTINGS          (one attribute a setting; code_count)
//	variables            SURVEY#<sid>          VARIABLES         (all of a survey's variables; version)
//	auth code            CODES#<sid>           CODE#<code>
//	data key (wrapped)   DATAKEY#<kid>         DATAKEY
//	current data key     DATAKEY               CURRENT
//	used one-use link    LINK#<token id>       USED
//
// GSI1 holds only live surveys (a trashed survey loses its GSI1 keys) and
// folders; GSI2 holds the catalog and, sparsely, only the surveys with an
// expiration date that the sweep has not closed.
//
// # Access patterns
//
//	authenticate a request          GetItem APIKEY#<hash>, then GetItem ACCOUNT#<aid> (cached 30 s per container)
//	whoami                          served from the authenticated account
//	template by slug                Query GSI1 TSLUG#<slug>
//	similar templates of one        BatchGetItem TEMPLATE#<tid>... (one call, up to 100 keys)
//	template list, filters, paging  Query GSI2 CATALOG (score descending by key; filters and pages in memory)
//	create account, key             TransactWriteItems (account + email guard), PutItem APIKEY
//	new ids of a kind               UpdateItem ADD on one of 16 counter shards, leased 16 at a time (see ids.go)
//	a new id found taken            UpdateItem SET seq on its shard (only upwards), then a fresh id (see ids.go)
//	a create's retried write        the put_token of the item that failed the condition (ALL_OLD; see landed.go)
//	folders with their surveys      Query GSI1 OWNER#<aid>: folders and live surveys, grouped by folder
//	one folder with its surveys     GetItem FOLDER#<fid> (consistent), Query GSI1 OWNER#<aid> begins_with F#<fid>#
//	next folder order               Query ACCOUNT#<aid> begins_with FOLDER# (consistent, keys and order only)
//	delete a folder                 UpdateItem (mark deleting), Query GSI1 of its surveys, UpdateItem each (trash), DeleteItem
//	create a survey                 TransactWriteItems: survey, slug guard, empty layout, ConditionCheck live folder
//	survey detail                   Query PK SURVEY#<sid>: survey, layout, elements, settings, variables (one item collection)
//	survey by public slug           GetItem SLUG#<url_slug> (holds the survey id)
//	move, trash, restore a survey   UpdateItem SURVEY (conditional), with ConditionCheck of the folder when one is named
//	element insert, move, delete    GetItem LAYOUT, then TransactWriteItems: element, LAYOUT (version), SURVEY (live; question_count)
//	one element                     BatchGetItem LAYOUT + ELEMENT#<eid>
//	settings read                   BatchGetItem SURVEY + SETTINGS
//	settings change                 TransactWriteItems: UpdateItem SETTINGS (named fields only), SURVEY (fields, expiry keys; live)
//	surveys due for the sweep       Query GSI2 EXPIRY#<0..7>, GSI2SK <= <today>#~ (sparse: only surveys with a date)
//	close a due survey              UpdateItem SURVEY conditional on the indexed date, removing its GSI2 keys
//	auth codes, a page              GetItem SETTINGS (count), Query CODES#<sid> in SK order (keys only)
//	add or delete codes             BatchGetItem (which exist), BatchWriteItem, UpdateItem SETTINGS ADD code_count
//	auth code check (unique)        UpdateItem CODES#<sid> CODE#<code> with a condition on "used"
//	variables of a survey           BatchGetItem SURVEY + VARIABLES; written whole under the version read
//	personalised link data key      GetItem DATAKEY CURRENT (holds the wrapped key), GetItem DATAKEY#<kid> on a miss
//	one-use link consumed           PutItem LINK#<token id> with attribute_not_exists
package store

import (
	"fmt"
	"strings"
)

// Attribute and index names, as template.yaml declares them.
const (
	AttrPK     = "PK"
	AttrSK     = "SK"
	AttrGSI1PK = "GSI1PK"
	AttrGSI1SK = "GSI1SK"
	AttrGSI2PK = "GSI2PK"
	AttrGSI2SK = "GSI2SK"
	AttrTTL    = "expires_at"
	IndexGSI1  = "GSI1"
	IndexGSI2  = "GSI2"
)

// pad renders n as a fixed-width decimal, so that string order is numeric.
func pad(n int64) string { return fmt.Sprintf("%020d", n) }

// descending renders n so that ascending string order is descending n,
// negative numbers included.
func descending(n int64) string { return fmt.Sprintf("%020d", ^(uint64(n) ^ 1<<63)) }

// AccountPK is the partition of an account: its profile and its folders.
func AccountPK(aid int64) string { return "ACCOUNT#" + pad(aid) }

// EmailPK guards the uniqueness of an account email.
func EmailPK(email string) string { return "EMAIL#" + strings.ToLower(email) }

// APIKeyPK is where the SHA-256 hash of an API key is stored.
func APIKeyPK(hashHex string) string { return "APIKEY#" + hashHex }

// CounterPK is one shard of the id counter of a kind.
func CounterPK(kind string, shard int) string { return fmt.Sprintf("COUNTER#%s#%02d", kind, shard) }

// TemplatePK is a template's item.
func TemplatePK(tid int64) string { return "TEMPLATE#" + pad(tid) }

// TemplateSlugKey is GSI1PK of a template: its slug.
func TemplateSlugKey(slug string) string { return "TSLUG#" + slug }

// CatalogKey is GSI2PK of every template.
const CatalogKey = "CATALOG"

// CatalogSK orders templates by score descending, then id ascending.
func CatalogSK(score, tid int64) string { return descending(score) + "#" + pad(tid) }

// OwnerKey is GSI1PK of an account's folders and live surveys.
func OwnerKey(aid int64) string { return "OWNER#" + pad(aid) }

// FolderSK is a folder's SK in its account's partition.
func FolderSK(fid int64) string { return "FOLDER#" + pad(fid) }

// FolderOwnerSK is GSI1SK of a folder; its surveys follow it in that order.
func FolderOwnerSK(fid int64) string { return "F#" + pad(fid) }

// SurveyOwnerSK is GSI1SK of a live survey: right after its folder.
func SurveyOwnerSK(fid, sid int64) string { return FolderOwnerSK(fid) + "#S#" + pad(sid) }

// SurveyPK is the partition of a survey: the whole detail in one Query.
func SurveyPK(sid int64) string { return "SURVEY#" + pad(sid) }

// SlugPK maps a public survey slug to its survey, and keeps it unique.
func SlugPK(slug string) string { return "SLUG#" + slug }

// ElementSK is an element's SK in its survey's partition.
func ElementSK(eid int64) string { return "ELEMENT#" + pad(eid) }

// CodesPK is the partition of a survey's authentication codes, kept apart
// from the survey's so that 100,000 codes never weigh on the detail Query.
func CodesPK(sid int64) string { return "CODES#" + pad(sid) }

// CodeSK is one authentication code; byte order of SK is the codes' order.
func CodeSK(code string) string { return "CODE#" + code }

// ExpiryShards spreads the sweep index over partitions.
const ExpiryShards = 8

// ExpiryKey is GSI2PK of a survey with an expiration date. The shard is a
// hash of the id, not id mod 8: ids of one counter shard are congruent mod
// 16 (see ids.go), so a plain modulus would put them all in one partition.
func ExpiryKey(sid int64) string {
	return fmt.Sprintf("EXPIRY#%d", (uint64(sid)*0x9E3779B97F4A7C15)>>61)
}

// ExpirySK orders a shard of the sweep index by date.
func ExpirySK(date string, sid int64) string { return date + "#" + pad(sid) }

// DataKeyPK is a stored (KMS-encrypted) data key.
func DataKeyPK(kid string) string { return "DATAKEY#" + kid }

// LinkPK records the use of a one-time personalised link.
func LinkPK(tokenID string) string { return "LINK#" + tokenID }
