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
echo "Warden starting on ${WARDEN_ADDR:-:8080} (Ctrl-C stops). Check it: curl -s http://127.0.0.1:${WARDEN_ADDR##*:}/healthz" | sed "s#127.0.0.1::8080#127.0.0.1:8080#"
exec bin/bot serve
