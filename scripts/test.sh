#!/usr/bin/env bash
# make test: vet, then every test with the race detector against a real Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
go vet ./...
# The sandbox tests run bubblewrap for real: install it when missing (as root
# with apt), else stop here naming the package.
if ! command -v bwrap >/dev/null; then
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    apt-get install -y -q bubblewrap >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }
  fi
  command -v bwrap >/dev/null || { echo "make test needs bubblewrap: install the bubblewrap package (apt-get install bubblewrap)" >&2; exit 1; }
fi
exec scripts/with-redis.sh go test -race -count=1 -timeout 20m ./...
