#!/usr/bin/env bash
# Runs a command with WARDEN_TEST_REDIS_ADDR pointing at a real Redis: the one
# already set, else 127.0.0.1:6379 when it answers, else a redis-server started
# on a free port for the run and stopped after (always, with
# WARDEN_TEST_REDIS_PRIVATE=1: a long run then shares no database or lease
# with other test runs). Never a silent skip: without any Redis it fails and
# says what to install.
set -euo pipefail

ping_redis() { # host port
  local reply
  { exec 3<>"/dev/tcp/$1/$2"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  IFS= read -r -t 2 reply <&3 || true
  exec 3<&- 3>&-
  [[ "$reply" == "+PONG"* ]]
}

if [[ -n "${WARDEN_TEST_REDIS_ADDR:-}" ]]; then
  ping_redis "${WARDEN_TEST_REDIS_ADDR%:*}" "${WARDEN_TEST_REDIS_ADDR##*:}" || {
    echo "WARDEN_TEST_REDIS_ADDR=$WARDEN_TEST_REDIS_ADDR does not answer PING" >&2; exit 1; }
elif [[ -z "${WARDEN_TEST_REDIS_PRIVATE:-}" ]] && ping_redis 127.0.0.1 6379; then
  export WARDEN_TEST_REDIS_ADDR=127.0.0.1:6379
else
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "No Redis answers at 127.0.0.1:6379 (or a private one was asked for) and redis-server is not installed." >&2
    echo "Install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) and run again." >&2
    exit 1
  fi
  port=""
  for _ in $(seq 1 50); do
    p=$(( (RANDOM % 20000) + 30000 ))
    if ! ping_redis 127.0.0.1 "$p" && ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
  done
  [[ -n "$port" ]] || { echo "no free port for redis-server" >&2; exit 1; }
  dir=$(mktemp -d)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize no >"$dir/redis.log" 2>&1 &
  pid=$!
  trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
  for _ in $(seq 1 100); do ping_redis 127.0.0.1 "$port" && break; sleep 0.1; done
  ping_redis 127.0.0.1 "$port" || { echo "redis-server did not start:" >&2; cat "$dir/redis.log" >&2; exit 1; }
  export WARDEN_TEST_REDIS_ADDR=127.0.0.1:$port
  echo "started redis-server on $WARDEN_TEST_REDIS_ADDR for this run"
fi
"$@"
