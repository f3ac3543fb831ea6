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
//	account              ACCOUNT#<aid>         ACCOUNT                                           (counts: live_surveys, folders)
//	email guard          EMAIL#<lower email>   EMAIL
//	API key              APIKEY#<sha256 hex>   APIKEY
//	id counter shard     COUNTER#<kind>#<n>    COUNTER
//	template             TEMPLATE#<tid>        TEMPLATE          TSLUG#<slug> / TEMPLATE         CATALOG / <desc score>#<tid>
//	folder               ACCOUNT#<aid>         FOLDER#<fid>      OWNER#<aid> / F#<fid>
//	survey               SURVEY#<sid>          SURVEY            OWNER#<aid> / F#<fid>#S#<sid>   EXPIRY#<hash(sid) mod 8> / <date>#<sid>
//	survey view count    SURVEY#<sid>          VIEWS             OWNER#<aid> / F#<fid>#S#<sid>#V (see views.go)
//	survey slug          SLUG#<url_slug>       SLUG
//	element layout       SURVEY#<sid>          LAYOUT            (ordered id lists, groups, element sizes; version)
//	element              SURVEY#<sid>          ELEMENT#<eid>     (fields as JSON, choices/rows/columns included)
//	survey settings      SURVEY#<sid>          SETTINGS          (one attribute a setting; code_count, the count before its shards)
//	variables            SURVEY#<sid>          VARIABLES         (all of a survey's variables; version)
//	auth code            CODES#<sid>           CODE#<code>
//	auth code count      CODES#<sid>           COUNT#<0..7>      (code_count: one shard of the count; x<hex byte>, t: that
//	                                                             shard's root counts of the code page index, codepages.go)
//	code page index      CODES#<sid>           PAGES             (depth: the trie's depth, fixed by the first upload)
//	  a node, per shard  CODES#<sid>           PAGES#<hex prefix>#<0..7> (x<hex byte>, t: codes of the shard under the prefix)
//	code guess window    GUESSES#<sid>         <window>          (n: failed checks; expires_at)
//	  and per client     GUESSES#<sid>         <window>#<client> (n: failed checks of one IP; expires_at)
//	data key (wrapped)   DATAKEY#<kid>         DATAKEY
//	current data key     DATAKEY               CURRENT
//	used one-use link    LINK#<token id>       USED              (written by the response that uses it)
//	response             RESPONSES#<sid>[#k]   RESPONSE#<rid>    RTIME#<sid>[#k] / <submitted_at>#<rid> (k: 16 shards; responses.go)
//	report code          REPORT#<report_code>  REPORT            (holds the survey id; written with the survey)
//	report counts shard  AGG#<sid>             SHARD#<0..7>      (n, c_, s_, m_, rn_, rs_ counts: ADDed by the tally, an attribute's
//	                                                              shard a hash of its name; see reports.go)
//	idempotency key      RESPONSES#<sid>[#k]   IDEM#<sha256 hex> (TTL expires_at, 24 hours; k from the hash)
//	edit guard           RESPONSES#<sid>[#k]   EDITING#<rid>     (an unsettled edit of the response: edited_at; TTL 15 s; edit.go)
//	session's claim      RESPONSES#<sid>[#k]   SESSION#<token sha256 hex> (the response a session recorded; claims.go)
//	file's claim         RESPONSES#<sid>[#k]   UPLOAD#<key sha256 hex>    (the response a file belongs to; claims.go)
//	view record          VIEWLOG#<sid>#<0..15> VIEW#<random>     (TTL 48 hours; counted by the tally; see views.go)
//	tally checkpoint     TALLY#<sid>           <stream shard id> (seq: the last record part applied; TTL 48 hours; see tally.go)
//	response page node   RPAGES#<sid>          N#<time prefix>   (c<digits>: responses of each month/day/hour/minute/second
//	                                                             under the prefix; responsepages.go)
//	response page marks  RPAGES#<sid>          META              (f<k>, h<k>: first and highest key applied, per shard)
//	page index checkpoint RPAGES#<sid>         CP#<stream shard> (seq; TTL 48 hours)
//	export job           EXPORTS#<sid>         EXPORT#<job id>   (state, file key, rows; TTL 24 hours; see exportjobs.go)
//	spent challenge      CHALLENGE#<sid>#<salt> SPENT           (TTL expires_at: an hour after the challenge's expiry)
//	request counter      RATE#<scope>#<key>    W#<window>#<shard> (n; TTL expires_at: an hour after the window; rates.go,
//	                                                             shared/ratelimit: a client's or a survey's requests)
//	one-response guard   RESPONDER#<sid>#<cookie hash> RESPONDED (a no_spam survey's responder; written by its first response)
//	a survey's webhooks  HOOKS#<sid>           WEBHOOKS          (all of them, secrets sealed; version)
//	webhook delivery     DELIVERIES#<wid>      DELIVERY#<event µs>#<rid>   (TTL expires_at: 30 days; while pending,
//	                                                                 GSI2 DUE#<00..15> / <due ms>#<wid>#<SK>: see deliveries_due.go)
//	webhook breakers     HOOKS#<sid>           BREAKERS          (per webhook: consecutive failures, paused until; breakers.go)
//	surveys with hooks   HOOKS#<sid>           WEBHOOKS          (GSI1 HOOKED#<sid mod shards>: the replay's index; replay.go)
//	paused delivery      DELIVERIES#<wid>      DELIVERY#...      (GSI1 PAUSED#<wid>#<0..7> / <SK>: held back by its breaker; deliveries_due.go)
//	hooked backfill      MIGRATION#hooked-index DONE            (the replay's index is complete: admin webhooks backfill; replay.go)
//	catalog account      CATALOG               ACCOUNT           (the one account whose surveys back templates)
//	pending copy         PENDING#<sid>         COPY                                              COPYING#<sid mod 4> / <started>#<sid> (see copy.go)
//
// GSI1 holds only live surveys (a trashed survey loses its GSI1 keys),
// folders, and the surveys' view counts (which may outlive their survey's
// place there: readers show a count only beside its survey); GSI2 holds the
// catalog and, sparsely, only the surveys with an expiration date that the
// sweep has not closed.
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
//	a create's retried write        the put_token of the item that failed the condition (ALL_OLD; see puttoken.go)
//	folders with their surveys      Query GSI1 OWNER#<aid>: folders and live surveys, grouped by folder
//	one folder with its surveys     GetItem FOLDER#<fid> (consistent), Query GSI1 OWNER#<aid> begins_with F#<fid>#
//	                                (both lists read each survey's view count right after it)
//	next folder order               Query ACCOUNT#<aid> begins_with FOLDER# (consistent, keys and order only)
//	create a folder                 TransactWriteItems: Put FOLDER#<fid>, UpdateItem ACCOUNT ADD folders (under its limit)
//	delete a folder                 UpdateItem (mark deleting), Query GSI1 of its surveys, TransactWriteItems of up to 99
//	                                conditional trashes + ACCOUNT ADD live_surveys -n, then TransactWriteItems: DeleteItem
//	                                FOLDER#<fid> + ACCOUNT ADD folders -1
//	create a survey                 TransactWriteItems: survey, slug guard, empty layout, report code, ConditionCheck live folder,
//	                                UpdateItem ACCOUNT ADD live_surveys (under its limit; see limits.go)
//	survey detail                   Query PK SURVEY#<sid>: survey, layout, elements, settings, variables (one item collection)
//	survey by public slug           GetItem SLUG#<url_slug> (holds the survey id; cached per container, never stale)
//	responder's view of a survey    GetItem SURVEY (its collection version cv; the container's cached collection when
//	                                it matches, else Query PK SURVEY#<sid>: pubcache.go), then count a view
//	start a session                 BatchGetItem SURVEY + SETTINGS + LAYOUT + GUESSES (eventually consistent); GetItem
//	                                CODE#<code>, GetItem LINK#<token id> when given
//	submit a response               GetItem SURVEY (consistent: cv; Query PK SURVEY#<sid> only when the container's
//	                                cached collection is not of that cv), then TransactWriteItems of the responder's items
//	                                only: Put IDEM (new or expired), Put RESPONSE (its shard), Update CODE (unique: spend)
//	                                or ConditionCheck CODE, Put LINK USED; then GetItem SURVEY (consistent: still open?
//	                                if not, a TransactWriteItems of the same items withdraws it; see fence.go)
//	tally a stream batch            per survey: GetItem TALLY#<sid> <shard> (consistent), TransactWriteItems: Update
//	                                SURVEY ADD submitted_responses (+1 an insertion, -1 a removal), AGG#<sid> SHARD#<n>
//	                                ADD counts (each attribute's shard; an edit moves them: old image -, new image +),
//	                                VARIABLES ADD responded, VIEWS ADD views, Put TALLY (conditional on the read); a batch
//	                                too big for one transaction in several, in order, each moving the checkpoint
//	replay of a refused submission  GetItem IDEM#<hash> (only on the way to a refusal)
//	move, trash, restore a survey   UpdateItem SURVEY (conditional), with ConditionCheck of the folder when one is named
//	                                and, moving or restoring, UpdateItem VIEWS (its GSI1 keys) in the same transaction;
//	                                a trash or restore also ADDs -1/+1 to ACCOUNT live_surveys in that transaction
//	recount an account (admin)      GetItem ACCOUNT (counts), Query GSI1 OWNER#<aid> (keys), UpdateItem ACCOUNT (conditional)
//	count a view                    PutItem VIEWLOG#<sid>#<random shard> VIEW#<random> (the tally adds it to VIEWS)
//	element insert, move, delete    GetItem LAYOUT, then TransactWriteItems: element, LAYOUT (version), SURVEY (live; question_count)
//	                                (new choice/row/column ids: from the leased ids, or one UpdateItem for all of them)
//	one element                     BatchGetItem LAYOUT + ELEMENT#<eid>
//	settings read                   BatchGetItem SURVEY + SETTINGS
//	settings change                 TransactWriteItems: UpdateItem SETTINGS (named fields only), SURVEY (fields, expiry keys; live)
//	surveys due for the sweep       Query GSI2 EXPIRY#<0..7>, GSI2SK <= <today>#~ (sparse: only surveys with a date)
//	close a due survey              UpdateItem SURVEY conditional on the indexed date, removing its GSI2 keys
//	auth codes, a page              BatchGetItem SURVEY, SETTINGS, COUNT#0..7 (the count); page k > 1: BatchGetItem PAGES +
//	                                COUNT#0..7 (the trie's root), one Query a level of PAGES#<hex prefix># (consistent) down
//	                                to the leaf of the page's start; then Query CODES#<sid> CODE# BETWEEN <leaf> AND CODE$
//	                                (keys only: the leaf's codes before the start, and the page). Where the root's counts
//	                                do not add up to the count (codes from before the index): the earlier pages' keys
//	add or delete codes             TransactWriteItems, in byte order: conditional Put/Delete CODE# (up to 99), ADD to one
//	                                COUNT# shard (count and root counts) and to that shard's nodes of their prefixes, all
//	                                under 100 items (codepages.go); the first upload also PutItem PAGES (conditional)
//	                                (BatchGetItem first, of which exist, when the survey has codes)
//	delete every code               Query CODES#<sid> begins_with CODE#, then transactions as above, page by page
//	auth code check                 GetItem CODES#<sid> CODE#<code> (consistent; a unique code is spent by its response)
//	code check guard                BatchGetItem GUESSES#<sid> window items with the survey; UpdateItem ADD n on a failed check
//	                                (past the survey's limit a check needs a solved challenge: PutItem CHALLENGE# spent)
//	limits per client, per survey   in memory; every few requests UpdateItem ADD RATE#<scope>#<key> W#<window>#<shard>,
//	                                and for a survey Query RATE#... begins_with W#<window># (the shards' sum)
//	variables of a survey           BatchGetItem SURVEY + VARIABLES; written whole under the version read
//	personalised link data key      GetItem DATAKEY CURRENT (holds the wrapped key), GetItem DATAKEY#<kid> on a miss
//	one-use link used?              GetItem LINK#<token id> (consistent; the response's transaction puts it)
//	responses, a page (owner)       Query GSI1 RTIME#<sid>[#k] of the 16 shards, newest first, GSI1SK between the filters
//	                                and the cursor, merged lazily: a few items a shard at once, a shard read again only
//	                                when its items are used (responses_read.go): about the page's items in all
//	responses, page k by number     GetItem RPAGES META, GetItem RPAGES N#<prefix> a level down to the second of the page's
//	                                start (and the ends cut by the filters), the merged Queries of that second's keys and of
//	                                the keys outside the marks (the last minute's); then as above. Without marks for
//	                                every shard, or with ?spam=: the merged Queries of every earlier key (keys only)
//	tally: the page index           per survey and stream shard: GetItem RPAGES CP#<shard> (consistent), TransactWriteItems:
//	                                ADD to its nodes, SET META marks, Put CP (conditional on the read), 90 nodes a transaction
//	one response (owner)            BatchGetItem SURVEY + RESPONSE#<rid> in its shard and in shard 0 (consistent)
//	export job                      PutItem EXPORT (pending) + SQS; the export function: UpdateItem EXPORT (running), the
//	                                responses' Queries, S3 multipart upload, UpdateItem EXPORT (succeeded)
//	delete a response               BatchGetItem SURVEY + RESPONSE (consistent: live, the account's?), then TransactWriteItems:
//	                                Delete RESPONSE (attribute_exists), Update RPAGES N#... ADD -1 (5 nodes); the tally takes
//	                                its counts back from the REMOVE record. A response
//	                                counted before the tally: TransactWriteItems of the Delete, Update SURVEY ADD
//	                                submitted_responses -1 (live, the account's), Update AGG#<sid> SHARD#<n> ADD -1 to its counts
//	edit a response (section 16)    BatchGetItem RESPONSE (consistent), TransactWriteItems: Update RESPONSE (edited_at as read),
//	                                Put EDITING#<rid> (none unsettled); GetItem SURVEY (consistent: still open?), then DeleteItem
//	                                EDITING#<rid>, or, closed, TransactWriteItems: the RESPONSE written back + Delete EDITING#
//	                                (see edit.go); the tally moves the report counts from the MODIFY record
//	public report by code           GetItem REPORT#<code>, Query PK SURVEY#<sid>, BatchGetItem AGG#<sid> SHARD#0..7 (never the responses)
//	webhooks of a survey (owner)    BatchGetItem SURVEY + HOOKS#<sid> WEBHOOKS
//	change webhooks                 TransactWriteItems: ConditionCheck SURVEY (live), Put WEBHOOKS (version)
//	webhooks of a new response      stream record (NEW_AND_OLD_IMAGES, filtered to INSERT of RESPONSE#), GetItem WEBHOOKS
//	record a delivery               PutItem DELIVERY with attribute_not_exists (the event fixes its key)
//	one attempt (batched by ten)    BatchGetItem DELIVERY + WEBHOOKS + RESPONSE, UpdateItem DELIVERY (claim, then outcome,
//	                                each conditional on the claim: one chain per delivery)
//	due retries (retrier, a minute) Query GSI2 DUE#<shard> SK <= now, per shard; UpdateItem (requeue, conditional)
//	replay a window of events       Query GSI1 HOOKED#<shard>, then each survey's responses by time (GSI1 RTIME#)
//	a breaker closes (resume)       Query GSI1 PAUSED#<wid>#<shard> per shard, UpdateItem each (conditional: still paused)
//	backfill the hooked index       (admin, once) parallel Scan filtered to WEBHOOKS items without GSI1 keys, UpdateItem each
//	deliveries of a webhook, a page Query DELIVERIES#<wid> SK BETWEEN <30 days ago> AND <cursor>, descending
//	template's survey (start)       GetItem TEMPLATE#<tid> or Query GSI1 TSLUG#<slug> (its survey_id attribute)
//	mark template surveys (import)  GetItem CATALOG ACCOUNT, GetItem SURVEY per named survey, UpdateItem is_template
//	copy a survey                   Query PK SURVEY#<src>, UpdateItem per id kind (counters), TransactWriteItems: Put
//	                                PENDING marker + ConditionCheck SURVEY/LAYOUT of the new id absent; BatchWriteItem of
//	                                25 elements/settings/variables (4 at a time); TransactWriteItems: ConditionCheck
//	                                folder, Put SURVEY, SLUG, LAYOUT, REPORT, ACCOUNT ADD live_surveys (limit), Delete marker
//	dead copies (sweeper)           Query GSI2 COPYING#<0..3>, GSI2SK < <now - 20 min>; per copy Query its keys, BatchWriteItem
//	                                deletes of 25, DeleteItem the marker
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

// SurveyViewsOwnerSK is GSI1SK of a survey's view count: right after the
// survey (see views.go).
func SurveyViewsOwnerSK(fid, sid int64) string { return SurveyOwnerSK(fid, sid) + "#V" }

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
func CodeSK(code string) string { return codePrefix + code }

const codePrefix = "CODE#"

// CodeCountShards is how many items a survey's code count is spread over.
// Every code write is a transaction that also adds to one shard; the
// transactions of one upload run 8 at a time, and two transactions that
// touch the same item conflict (DynamoDB cancels one), so each in-flight
// transaction gets a shard of its own.
const CodeCountShards = 8

// CodeCountSK is one shard of a survey's code count, in the codes'
// partition (after every CODE# key in byte order).
func CodeCountSK(shard int) string { return fmt.Sprintf("COUNT#%d", shard) }

// AttrCodeCount is the number attribute of a count shard (and, before the
// shards, of the settings item).
const AttrCodeCount = "code_count"

// GuessesPK is the partition of a survey's failed code checks: one item a
// window, and one a window and client.
func GuessesPK(sid int64) string { return "GUESSES#" + pad(sid) }

// GuessWindowSK is the survey-wide count of one fixed window, named by its
// start (Unix seconds).
func GuessWindowSK(start int64) string { return pad(start) }

// GuessClientSK is one client's count in a window. The client is its IP
// address; an IPv6 client is its /64, the block one subscriber is given,
// so that walking the addresses of a block does not make new clients.
func GuessClientSK(start int64, ip string) string { return pad(start) + "#" + clientKey(ip) }

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
