package awsenv

import (
	"context"
	"errors"
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
	nanos       atomic.Int64
	mu          sync.Mutex
	ops         map[string]int
}

type callsKey struct{}

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

// Fault decides, for tests, whether an AWS call fails before it is sent:
// it returns the error to answer, or nil to let the call through, or a
// *LostReply to make the call and then fail. It is asked with the call's
// context, the service ("DynamoDB", "KMS") and the operation name.
type Fault func(ctx context.Context, service, operation string) error

// faults are the injected faults in force, asked in turn; the slice is
// replaced, never changed, so a call reads it without a lock.
var (
	faults   atomic.Pointer[[]*Fault]
	faultsMu sync.Mutex
)

// LostReply is a fault that lets the call through and then answers Err, as
// when a request took effect but its reply was lost on the network: the
// caller cannot tell it from a call that failed.
type LostReply struct{ Err error }

func (l *LostReply) Error() string { return "lost reply: " + l.Err.Error() }

// Unwrap is the error the caller sees.
func (l *LostReply) Unwrap() error { return l.Err }

// InjectFaults makes every AWS call of this process ask f, until the
// returned restore is called. It is for fault-injection tests only. It is
// process-wide: faults of tests that run in parallel are all in force at
// once (each asked in turn, the first error answered), so such a test
// fails only the calls it can tell are its own (by their context), or runs
// alone.
func InjectFaults(f Fault) (restore func()) {
	own := &f
	faultsMu.Lock()
	defer faultsMu.Unlock()
	var list []*Fault
	if cur := faults.Load(); cur != nil {
		list = append(list, *cur...)
	}
	list = append(list, own)
	faults.Store(&list)
	return func() {
		faultsMu.Lock()
		defer faultsMu.Unlock()
		var rest []*Fault
		if cur := faults.Load(); cur != nil {
			for _, g := range *cur {
				if g != own {
					rest = append(rest, g)
				}
			}
		}
		faults.Store(&rest)
	}
}

// injected asks the faults in force about one call.
func injected(ctx context.Context, service, operation string) error {
	cur := faults.Load()
	if cur == nil {
		return nil
	}
	for _, f := range *cur {
		if err := (*f)(ctx, service, operation); err != nil {
			return err
		}
	}
	return nil
}

func counterOptions(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("surveyservice.CallCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if err := injected(ctx, awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)); err != nil {
				var lost *LostReply
				if errors.As(err, &lost) {
					out, md, _ := next.HandleInitialize(ctx, in)
					return out, md, lost.Err
				}
				return middleware.InitializeOutput{}, middleware.Metadata{}, err
			}
			recordKeys(ctx, in.Parameters)
			c := CallsFrom(ctx)
			if c == nil {
				return next.HandleInitialize(ctx, in)
			}
			start := time.Now()
			out, md, err := next.HandleInitialize(ctx, in)
			c.record(awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx), time.Since(start))
			return out, md, err
		}), middleware.After)
}
