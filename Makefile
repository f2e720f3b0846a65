# Warden. The two commands: `make run` and `make test`.
GO ?= go
STATICCHECK_VERSION := v0.8.2
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

.PHONY: all build run test lint bench soak soak-interleavings fuzz clean redteam-mutants mutants

all: build

# Static (CGO_ENABLED=0): bot is the helper bound into every sandbox, and an
# image may have no libc.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/bot ./cmd/bot

## run: build and start `bot serve` on the embedded Redis with a printed development secret
run: build
	@scripts/run.sh

## test: go vet and go test -race against a real Redis (started for the run if none answers)
test:
	@scripts/test.sh

## lint: gofmt check, go vet, staticcheck (pinned), only package trusted reads the trusted inputs (CONTRACT §13), and docs/architecture.md's package map matches go list
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	$(GO) test -count=1 -run 'TestOnlyTrustedReadsTrustedInputs|TestLintCatchesAReadOutsideTrusted' ./trusted
	$(GO) test -count=1 ./docs

## redteam-mutants: plant each containment bug of test/mutants/redteam*.txt in turn; a red-team test must catch every one (make test runs redteam.txt, the unit-level ones)
redteam-mutants:
	@scripts/with-redis.sh $(GO) run ./test/mutants test/mutants/redteam.txt
	@scripts/with-redis.sh $(GO) run ./test/mutants test/mutants/redteam-e2e.txt

## bench: the benchmarks, reported as ratios against baselines measured in the same run
bench:
	@scripts/bench.sh

## soak: 30 minutes of mixed traffic against one process (SOAK_DURATION=10m for the short one)
soak:
	@scripts/soak.sh

## soak-interleavings: the PR interleaving test over SIM_SEEDS seeds (10,000) in SIM_JOBS parallel niced chunks, a line per chunk; every broken seed listed
soak-interleavings:
	@scripts/soak-interleavings.sh

## fuzz: 60 s of the webhook handler fuzzer
fuzz:
	@scripts/with-redis.sh $(GO) test -run '^$$' -fuzz FuzzHandler -fuzztime 60s ./webhooks/

## mutants: apply each planted bug of test/mutants/*.txt and show a test catches it
mutants:
	@for f in test/mutants/*.txt; do WARDEN_TEST_REDIS_PRIVATE=1 scripts/with-redis.sh $(GO) run ./test/mutants $$f || exit 1; done

clean:
	rm -rf bin
