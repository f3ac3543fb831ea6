package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"surveyservice/shared/awsenv"
	"surveyservice/shared/survey"
)

type loggerKey struct{}

// logger returns the request's logger (carrying its request id), or the
// default logger outside a request.
func logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// Logger returns the request's structured logger (with its request id),
// for handlers that log what they answer around.
func Logger(ctx context.Context) *slog.Logger { return logger(ctx) }

// statusWriter remembers the status written, for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Observe gives each request an id (the Lambda request id, else a new one),
// a logger carrying it, a counter of its AWS calls, and one access-log line:
// request id, method, route, status, duration and call counts. Bodies,
// queries and headers are never logged: they may hold keys and codes.
func Observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID(r.Context())
		ctx, calls := awsenv.WithCalls(r.Context())
		ri := &routeInfo{}
		l := slog.Default().With(slog.String("request_id", id))
		ctx = context.WithValue(context.WithValue(ctx, routeKey{}, ri), loggerKey{}, l)
		w.Header().Set("X-Request-Id", id)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(ctx))
		route := ri.path
		if route == "" {
			route = "(unmatched)"
		}
		l.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("method", r.Method),
			slog.String("route", route),
			slog.Int("status", sw.status),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.Int("dynamodb_calls", calls.DynamoDB()+calls.Auth()),
			slog.Int("kms_calls", calls.KMS()),
		)
	})
}

func requestID(ctx context.Context) string {
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		return lc.AwsRequestID
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Recover turns a panic into the generic 500 answer, logging the panic and
// its stack.
func Recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				logger(r.Context()).ErrorContext(r.Context(), "panic", slog.String("panic", fmt.Sprint(v)), slog.String("stack", string(debug.Stack())))
				Error(w, r, survey.Errorf(survey.EINTERNAL, "panic"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// secure sets the headers every answer carries.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// JSONLogging makes structured JSON on w the default log, as every main
// does; Lambda forwards it to CloudWatch as-is.
func JSONLogging(w io.Writer) {
	slog.SetDefault(slog.New(slog.NewJSONHandler(w, nil)))
}
