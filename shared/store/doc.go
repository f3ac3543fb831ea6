// Package store is the service's one DynamoDB table: its key design, its
// creation, and typed reads and writes of every entity. It uses
// github.com/guregu/dynamo directly; there is no generic repository layer.
//
// One table, string keys PK and SK, two overloaded global secondary indexes
// (GSI1, GSI2) and a TTL attribute; each key function in keys.go and beside
// its entity names its key. The key table, and the reasoning behind the
// writes below that are not obvious, are in docs/data-model.md.
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
//	                                UpdateItem ACCOUNT ADD live_surveys (under its limit; see limits.go), Put RPAGES META
//	                                (the page index complete from the start: responsepages_backfill.go)
//	survey detail                   Query PK SURVEY#<sid>: survey, layout, elements, settings, variables (one item collection)
//	survey by public slug           GetItem SLUG#<url_slug> (holds the survey id; cached per container, never stale)
//	responder's view of a survey    GetItem SURVEY#<sid>#STATE#<random of 8> (consistent: state and cv; the container's
//	                                cached collection when it matches, else GetItem SURVEY and, cv moved, Query PK SURVEY#<sid>;
//	                                a container's first read: those two; surveystate.go, pubcache.go), then count a view
//	start a session                 GetItem SURVEY#<sid>#STATE#<random> (consistent), with BatchGetItem GUESSES (eventually
//	                                consistent) when the survey checks a code; cv not the container's: BatchGetItem SURVEY +
//	                                GUESSES (+ SETTINGS, LAYOUT, TRANSLATIONS cold or moved); GetItem CODE#<code>, GetItem
//	                                LINK#<token id> when given
//	submit a response               as a view (its copy read consistent: state and cv), then TransactWriteItems of the responder's items
//	                                only: Put IDEM (new or expired; none for a session's own key, on its claim), Put RESPONSE
//	                                (its shard), Put SESSION claim, Update CODE (unique: spend)
//	                                or ConditionCheck CODE, Put LINK USED; then GetItem STATE copy (consistent: still open?
//	                                if not, a TransactWriteItems of the same items withdraws it; see fence.go)
//	tally a stream batch            per survey: GetItem TALLY#<sid> <shard> (consistent; the old checkpoint, read only),
//	                                then one UpdateItem each, conditional on the item's own checkpoint of the shard and
//	                                moving it: SURVEY ADD submitted_responses (+1 an insertion, -1 a removal), AGG#<sid>
//	                                SHARD#<n> ADD counts (each attribute's shard; an edit moves them: old image -, new
//	                                image +; several updates for one too big), VIEWS ADD views; VARIABLES ADD responded;
//	                                a failed condition: GetItem of that checkpoint (consistent) and the rest again
//	replay of a refused submission  GetItem IDEM#<hash>, or the session's claim for its own key (only on the way to a refusal)
//	move, trash, restore a survey   UpdateItem SURVEY (conditional), with ConditionCheck of the folder when one is named
//	                                and, moving or restoring, UpdateItem VIEWS (its GSI1 keys) in the same transaction;
//	                                a trash or restore also ADDs -1/+1 to ACCOUNT live_surveys in that transaction; a
//	                                rename, move, restore or theme ADDs 1 to SURVEY cv, and each UpdateItems the 8 STATE copies
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
//	send or confirm a sign-in code  GetItem SESSION#<sid>#<hash> SESSION#<hash> (consistent: the session's own claim, a
//	                                session that responded 409; SessionResponded), before the challenge or a try is spent
//	responses, a page (owner)       Query GSI1 RTIME#<sid>[#k] of the 16 shards, newest first, GSI1SK between the filters
//	                                and the cursor, merged lazily: a few items a shard at once, a shard read again only
//	                                when its items are used (responses_read.go): about the page's items in all
//	responses, page k by number     GetItem RPAGES META, GetItem RPAGES N#<prefix> a level down to the second of the page's
//	                                start (and the ends cut by the filters), the merged Queries of that second's keys and of
//	                                the keys outside the marks (the last minute's); then as above. Without marks for
//	                                every shard, or with ?spam=: the merged Queries of every earlier key (keys only)
//	tally: the page index           per survey and stream shard: GetItem RPAGES CP#<shard> (the old checkpoint) and META
//	                                (consistent), TransactWriteItems: ADD to its nodes, SET META marks and the shard's
//	                                checkpoint (conditional on the read), 90 nodes a transaction; once the backfill is
//	                                complete, an UpdateItem of each node and then of META, each conditional on its own
//	                                checkpoint
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
//	page by preview code            GetItem SLUG#<code> (missing), then GetItem PREVIEW#<code> (holds the survey id; contract section 21)
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
//	                                folder, Put SURVEY, SLUG, LAYOUT, REPORT, ACCOUNT ADD live_surveys (limit), Delete marker,
//	                                Put RPAGES META (as a create)
//	dead copies (sweeper)           Query GSI2 COPYING#<0..3>, GSI2SK < <now - 20 min>; per copy Query its keys, BatchWriteItem
//	                                deletes of 25, DeleteItem the marker
package store
