package store

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"
	"golang.org/x/sync/singleflight"

	"surveyservice/shared/survey"
)

// Store reads and writes the service's table.
type Store struct {
	// MediaURL is where /media/ paths of themes resolve (MEDIA_URL).
	MediaURL string
	themes   themeCache
	client   *dynamodb.Client
	db       *dynamo.DB
	table    dynamo.Table
	// Now is the clock; tests and the sweep replace it.
	Now func() time.Time
	// Guesses bounds failed code checks (survey.DefaultGuessLimits; tests
	// lower it).
	Guesses survey.GuessLimits
	// Limits bound what one account holds (survey.DefaultAccountLimits; tests
	// lower them).
	Limits survey.AccountLimits

	retries      atomic.Int64 // element writes retried after a lost layout race
	idCollisions atomic.Int64 // new ids found taken, replaced by fresh ones
	ids          idPools
	slugs        foreverCache[string, int64] // public slugs' surveys
	owners       foreverCache[int64, int64]  // surveys' accounts, for the host's scope (hostscope.go)
	// collections: the public routes' survey collections (pubcache.go).
	collections collectionCache
	// owners: the partial routes' reads of survey owners (OwnerAccount).
	ownerReads           ownerCache
	collHits, collMisses atomic.Int64
	// alloc hands out n fresh ids of a kind (addIDs; tests replace it to
	// force an id that is already taken).
	alloc func(ctx context.Context, kind string, n int) ([]int64, error)
	// caps: what this container learned of caps' allowances (places.go).
	caps capHints
	// viewHints: what this container learned of views items (views.go).
	viewHints viewHints
	// limitHeals shares one count of an overdue limit's base among the
	// container's requests that need it (limitbase.go).
	limitHeals singleflight.Group
	// beforeSubmitTx and afterSubmitTx, when set (tests), run just before
	// a submission's transaction is sent and just after it commits.
	beforeSubmitTx, afterSubmitTx func()
	// replayWaits, when set (tests), runs when a replay of a key waits
	// for its response's fence (replayed).
	replayWaits func()
	// beforeWithdrawTx, when set (tests), runs just before a withdrawal's
	// transaction is sent, with its context.
	beforeWithdrawTx func(context.Context)
	// afterCapPlan, when set (tests), runs when a change of a cap has
	// written the shares of a closed plan (rebase.go).
	afterCapPlan func()
	// beforeReopenLease, when set (tests), runs when a deletion's reopen
	// has read the rebase item and is about to take the caps' lease.
	beforeReopenLease func()
	// beforePartialState, when set (tests), runs when a partial's save has
	// put its entry, before it writes its header or delta.
	beforePartialState func()
	// seenChunk, when set (tests), replaces limitSeenChunk.
	seenChunk int
}

// New returns a Store on the named table.
func New(cfg aws.Config, tableName string) *Store {
	client := dynamodb.NewFromConfig(cfg)
	db := dynamo.NewFromIface(client)
	s := &Store{client: client, db: db, table: db.Table(tableName), Now: time.Now, Guesses: survey.DefaultGuessLimits, Limits: survey.DefaultAccountLimits}
	s.alloc = s.addIDs
	return s
}

// Client is the underlying SDK client, for table administration.
func (s *Store) Client() *dynamodb.Client { return s.client }

// TableName is the name of the table.
func (s *Store) TableName() string { return s.table.Name() }
