package store

import (
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/guregu/dynamo/v2"
)

// Store reads and writes the service's table.
type Store struct {
	client *dynamodb.Client
	db     *dynamo.DB
	table  dynamo.Table
	// Now is the clock; tests and the sweep replace it.
	Now func() time.Time
	// Guesses bounds failed code checks (DefaultGuessLimits; tests lower it).
	Guesses GuessLimits

	retries atomic.Int64 // element writes retried after a lost layout race
	ids     idPools
	slugs   slugCache
}

// New returns a Store on the named table.
func New(cfg aws.Config, tableName string) *Store {
	client := dynamodb.NewFromConfig(cfg)
	db := dynamo.NewFromIface(client)
	return &Store{client: client, db: db, table: db.Table(tableName), Now: time.Now, Guesses: DefaultGuessLimits}
}

// Client is the underlying SDK client, for table administration.
func (s *Store) Client() *dynamodb.Client { return s.client }

// TableName is the name of the table.
func (s *Store) TableName() string { return s.table.Name() }
