// Package coldstart measures the cold start of every Lambda function of the
// service: the real bootstrap binary, speaking the real Lambda Runtime API
// protocol, to a small stub of that API written in the test.
//
// # Method
//
// For each function named on the Makefile's `FUNCTIONS :=` line (so a new
// function is measured without touching this package), the test builds
// functions/<name>/lambda as the Makefile does (-tags "lambda.norpc nodynamic",
// -trimpath, -ldflags="-s -w", CGO_ENABLED=0), but for the host platform,
// into a temporary directory. Each run then:
//
//  1. starts an HTTP stub of the Runtime API
//     (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html) on a
//     loopback port. Its GET /2018-06-01/runtime/invocation/next answers
//     one event, with the Lambda-Runtime-Aws-Request-Id,
//     Lambda-Runtime-Deadline-Ms (now + 10 s), -Invoked-Function-Arn and
//     -Trace-Id headers, and blocks every later call until the run ends;
//     POST .../invocation/{id}/response records the time and the body;
//     .../invocation/{id}/error and /runtime/init/error record failures;
//  2. starts the binary with the environment Lambda gives it
//     (AWS_LAMBDA_RUNTIME_API, AWS_LAMBDA_FUNCTION_NAME,
//     AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256, ...) plus the service's own
//     (TABLE_NAME, KMS_KEY_ID, AWS credentials), pointed at the moto emulator
//     and a table of the test's own that testenv starts and creates;
//  3. measures the time from exec's Start to the stub receiving the
//     invocation's response (process creation, runtime and package init,
//     main's configuration, the first invocation), checks the response, and
//     kills the process.
//
// The event touches no AWS service, so the figure is the function's own
// start and not the emulator's latency: for HTTP functions an API Gateway
// v2 (payload 2.0) request answered before any store read (OPTIONS on a
// public route, a request without Authorization on a private one, which is
// 401, or an unknown path, which is 404); for the sweeper, an EventBridge
// scheduled event, whose sweep queries the test's empty table once.
//
// TestColdStart runs every function three times and checks only that each
// run answered: a valid API Gateway v2 response with the expected status
// (or a complete sweep), and no init or invocation error. Times are never
// asserted in tests; they depend on the machine.
//
// BenchmarkColdStart is where the figures come from:
//
//	go test -run '^$' -bench ColdStart -benchtime 1x ./infra/coldstart
//
// For each function (one sub-benchmark each) it takes 10 samples and
// reports median-ms (mean of the two middle samples), p90-ms (nearest
// rank, the 9th of 10) and binary-bytes, the size of the stripped
// linux/arm64 build that is deployed (built here as well, as `make build`
// builds it). The samples are taken in the first b.Loop iteration only, so
// -benchtime 1x is the intended use; ns/op is then the time of the 10 runs
// and means little.
//
// # Target
//
// On this machine, every function should start and answer in a median
// under 50 ms, and its linux/arm64 bootstrap should be under 12 MB. A
// function that misses the time target is best examined with
// GODEBUG=inittrace=1 on its binary, which lists the cost of each package
// init before main (see also `make bench`).
package coldstart
