package awsenv

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// Calls counts the AWS operations made under one context: one request, one
// benchmark iteration, one sweep. Retries of an operation count once.
type Calls struct {
	dynamo, kms atomic.Int64
	// auth are the calls made under ForAuth: the API key's read.
	auth  atomic.Int64
	nanos atomic.Int64
	mu    sync.Mutex
	ops   map[string]int
}

type callsKey struct{}

type authKey struct{}

// ForAuth marks ctx's calls as the authenticator's (the API key's read,
// made on every owner request): a counter counts them apart (Auth), not
// among DynamoDB and Ops, so that a handler's counts are its own work.
func ForAuth(ctx context.Context) context.Context { return context.WithValue(ctx, authKey{}, true) }

// Auth is the number of calls counted under ForAuth.
func (c *Calls) Auth() int { return int(c.auth.Load()) }

// WithCalls returns ctx carrying a fresh counter, or ctx unchanged with its
// existing counter when it has one (so a test's counter sees the handler's
// calls).
func WithCalls(ctx context.Context) (context.Context, *Calls) {
	if c := CallsFrom(ctx); c != nil {
		return ctx, c
	}
	c := &Calls{ops: map[string]int{}}
	return context.WithValue(ctx, callsKey{}, c), c
}

// CallsFrom returns the counter in ctx, or nil.
func CallsFrom(ctx context.Context) *Calls {
	c, _ := ctx.Value(callsKey{}).(*Calls)
	return c
}

// DynamoDB is the number of DynamoDB operations counted.
func (c *Calls) DynamoDB() int { return int(c.dynamo.Load()) }

// KMS is the number of KMS operations counted.
func (c *Calls) KMS() int { return int(c.kms.Load()) }

// Elapsed is the wall time spent waiting on AWS (or the emulator), so that
// benchmarks can subtract it from handler time.
func (c *Calls) Elapsed() time.Duration { return time.Duration(c.nanos.Load()) }

// Ops returns a copy of the per-operation counts, keyed "Service.Operation".
func (c *Calls) Ops() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.ops))
	for k, v := range c.ops {
		out[k] = v
	}
	return out
}

// Reset zeroes the counter.
func (c *Calls) Reset() {
	c.dynamo.Store(0)
	c.auth.Store(0)
	c.kms.Store(0)
	c.nanos.Store(0)
	c.mu.Lock()
	c.ops = map[string]int{}
	c.mu.Unlock()
}

func (c *Calls) record(service, op string, d time.Duration) {
	switch service {
	case "DynamoDB":
		c.dynamo.Add(1)
	case "KMS":
		c.kms.Add(1)
	}
	c.nanos.Add(int64(d))
	c.mu.Lock()
	c.ops[service+"."+op]++
	c.mu.Unlock()
}

// counterOptions counts every call made under a context with a counter
// and records the partitions it reaches (keys.go). Tests and `make run`
// put their fault injector (internal/localaws) just before it, by its name.
func counterOptions(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("surveyservice.CallCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			recordKeys(ctx, in.Parameters)
			c := CallsFrom(ctx)
			if c == nil {
				return next.HandleInitialize(ctx, in)
			}
			start := time.Now()
			out, md, err := next.HandleInitialize(ctx, in)
			if ctx.Value(authKey{}) != nil {
				c.auth.Add(1)
				c.nanos.Add(int64(time.Since(start)))
				return out, md, err
			}
			c.record(awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx), time.Since(start))
			return out, md, err
		}), middleware.After)
}
