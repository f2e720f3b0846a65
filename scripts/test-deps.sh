#!/usr/bin/env bash
# make test's tools: redis-server (Redis for the tests), chromium (the
# browser test of `bot setup`), bwrap (the sandbox of repository
# commands), a static busybox (an image with nothing but a shell) and
# python3-pytest (a worker that has pytest). A missing one is installed when this runs as root with apt-get
# (apt-get update once, then one `apt-get install -y` line per package);
# otherwise the script fails naming the one command to run. A test never
# skips because a tool is missing, so this runs before any test.
# Only bash builtins, `id`, apt-get (and rm, if there) are used: a test runs
# it on a stub PATH (scripts/testdeps_test.go).
set -euo pipefail

# command:package (Debian); busybox (static) is the image holding only a
# shell that the sandbox's way-out tests build; pytest-3 stands for
# Debian's python3-pytest, the pytest the system python3 (the one the
# sandbox sees) imports, which the offline Python end-to-end test needs
deps=(redis-server:redis-server chromium:chromium bwrap:bubblewrap busybox:busybox-static pytest-3:python3-pytest)

missing_packages() {
  local d
  for d in "${deps[@]}"; do
    command -v "${d%%:*}" >/dev/null 2>&1 || printf '%s\n' "${d#*:}"
  done
}

mapfile -t missing < <(missing_packages)
if ((${#missing[@]})); then
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    echo "test-deps: missing ${missing[*]}; install them first: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  log="${TMPDIR:-/tmp}/warden-test-deps.$$.log"
  export DEBIAN_FRONTEND=noninteractive
  echo "test-deps: apt-get update"
  if ! apt-get update >"$log" 2>&1; then
    echo "test-deps: apt-get update failed:" >&2; echo "$(<"$log")" >&2; exit 1
  fi
  for pkg in "${missing[@]}"; do
    echo "test-deps: installing $pkg (apt-get install -y $pkg)"
    if ! apt-get install -y "$pkg" >>"$log" 2>&1; then
      echo "test-deps: apt-get install -y $pkg failed:" >&2; echo "$(<"$log")" >&2; exit 1
    fi
  done
  mapfile -t still < <(missing_packages)
  if ((${#still[@]})); then
    echo "test-deps: still missing after apt-get: ${still[*]}" >&2; exit 1
  fi
  command rm -f "$log" 2>/dev/null || true
fi

# Hook for the agent CLIs (issue "Run the best coding agents under Warden"):
# scripts/agent-clis.sh, when present, checks or installs claude and codex
# the same way, and fails naming the command to run.
here="${BASH_SOURCE[0]%/*}"
if [[ -f "$here/agent-clis.sh" ]]; then
  "$BASH" "$here/agent-clis.sh" >/dev/null # it prints the bin directory
fi
