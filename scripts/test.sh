#!/usr/bin/env bash
# make test: the tools the tests need (installed when missing, see
# scripts/test-deps.sh), vet, then every test with the race detector against a real Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/test-deps.sh
go vet ./...
exec scripts/with-redis.sh go test -race -count=1 -timeout 20m ./...
