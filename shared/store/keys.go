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

// PhonesPK is the partition of a survey's allowed phone numbers (section
// 18's phone_numbers_limited), kept as the codes are, in a partition of its
// own with the same count shards and page index.
func PhonesPK(sid int64) string { return "PHONES#" + pad(sid) }

// PhoneSK is one allowed number, in E.164.
func PhoneSK(e164 string) string { return phonePrefix + e164 }

const phonePrefix = "PHONE#"

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

// SubdomainPK is a subdomain name's own item: who holds it, and until when
// a released or renamed one stays held. A claim is a conditional write on
// this item alone, so racing claims have exactly one winner without a scan.
func SubdomainPK(name string) string { return "SUBDOMAIN#" + name }

// ThemeSK is an account's theme in the account's partition (contract
// section 22): the whole library is one Query (begins_with "THEME#").
func ThemeSK(tid int64) string { return "THEME#" + pad(tid) }

// ThemeCountSK is the account's count of themes, which keeps the 200
// limit exact (one item of the account, written only by creates and deletes).
const ThemeCountSK = "THEMECOUNT"

// ThemeUsePrefix starts the SK of the markers of the surveys that use a
// theme of the account: deleting it counts them in one Query.
func ThemeUsePrefix(tid int64) string { return "THEMEUSE#" + pad(tid) + "#" }

// ThemeUseSK marks that the survey uses the account's theme.
func ThemeUseSK(tid, sid int64) string { return ThemeUsePrefix(tid) + pad(sid) }

// SurveyStateCopies is how many read copies of a survey's state there are
// (surveystate.go): partial saves and the close fence read one each, so
// that no survey item takes their reads.
const SurveyStateCopies = 8

// SurveyStatePK is read copy k of a survey's state, a partition of its own.
func SurveyStatePK(sid int64, k int) string { return fmt.Sprintf("%s#STATE#%d", SurveyPK(sid), k) }

// SurveyStateSK is the SK of a read copy of a survey's state.
const SurveyStateSK = "STATE"
