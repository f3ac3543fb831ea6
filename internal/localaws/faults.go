package localaws

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

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

// InjectFaults makes every AWS call of this process made with a
// configuration from Load ask f, until the returned restore is called. It
// is process-wide: faults of tests that run in parallel are all in force
// at once (each asked in turn, the first error answered), so such a test
// fails only the calls it can tell are its own (by their context), or
// runs alone.
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

// Scoped is a copy of cfg whose clients put scope in the context of each
// of their calls, first thing, where a Fault reads it (ScopeOf): a test
// that runs beside others fails the calls of its own clients, whichever
// context they were made with, and no other test's.
func Scoped(cfg aws.Config, scope string) aws.Config {
	c := cfg.Copy()
	mw := middleware.InitializeMiddlewareFunc(scopeID,
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			return next.HandleInitialize(context.WithValue(ctx, scopeKey{}, scope), in)
		})
	c.APIOptions = append(slices.Clone(cfg.APIOptions), func(stack *middleware.Stack) error {
		if _, ok := stack.Initialize.Get(scopeID); ok { // a Scoped of a Scoped: the last scope
			_, err := stack.Initialize.Swap(scopeID, mw)
			return err
		}
		return stack.Initialize.Add(mw, middleware.Before)
	})
	return c
}

const scopeID = "surveyservice.FaultScope"

type scopeKey struct{}

// ScopeOf is the scope of the client that made the call (Scoped), or "".
func ScopeOf(ctx context.Context) string {
	s, _ := ctx.Value(scopeKey{}).(string)
	return s
}

// counterID is the name of awsenv's call counter in a client's stack.
const counterID = "surveyservice.CallCounter"

// faultOptions puts the injector just before awsenv's call counter, after
// the SDK has named the call's service and operation: a call failed before
// it is sent is neither counted nor logged, as it never reached AWS.
func faultOptions(stack *middleware.Stack) error {
	return stack.Initialize.Insert(middleware.InitializeMiddlewareFunc("surveyservice.FaultInjector",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			err := injected(ctx, awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx))
			if err == nil {
				return next.HandleInitialize(ctx, in)
			}
			var lost *LostReply
			if errors.As(err, &lost) {
				out, md, _ := next.HandleInitialize(ctx, in)
				return out, md, lost.Err
			}
			return middleware.InitializeOutput{}, middleware.Metadata{}, err
		}), counterID, middleware.Before)
}
