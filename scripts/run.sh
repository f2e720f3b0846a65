#!/usr/bin/env bash
# make run: Warden on the embedded Redis with a development webhook secret.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${WARDEN_WEBHOOK_SECRET:-}" ]]; then
  WARDEN_WEBHOOK_SECRET="dev-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  export WARDEN_WEBHOOK_SECRET
  echo "development webhook secret: $WARDEN_WEBHOOK_SECRET"
fi
export WARDEN_DATA_DIR="${WARDEN_DATA_DIR:-./data}"
addr="${WARDEN_ADDR:-:8080}"
echo "Warden starting on $addr (Ctrl-C stops). Check it: curl -s http://127.0.0.1:${addr##*:}/healthz"
exec bin/bot serve
