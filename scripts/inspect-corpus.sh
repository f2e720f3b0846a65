#!/usr/bin/env bash
# Prints, for every mirror under MIRRORS (default /work/.mirror/<owner>+<name>/repo,
# as the search tool's fetch leaves them), what `bot inspect` infers from the
# root of its HEAD: test command, source file, setup command. Only the root
# files (and tests/, test/, spec/ Python files) are materialised, in a scratch
# directory; nothing is committed. Usage: scripts/inspect-corpus.sh [bot binary]
set -euo pipefail
bot=${1:-bin/bot}
mirrors=${MIRRORS:-/work/.mirror}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for g in "$mirrors"/*/repo; do
  n=$(basename "$(dirname "$g")"); d=$scratch/$n; mkdir -p "$d"
  git --git-dir="$g" ls-tree HEAD | while IFS=$'\t' read -r meta path; do
    read -r _ type obj <<<"$meta"
    case $type in
      tree) mkdir -p "$d/$path" ;;
      blob) git --git-dir="$g" cat-file blob "$obj" >"$d/$path" 2>/dev/null || true ;;
    esac
  done
  for sub in tests test spec; do
    git --git-dir="$g" ls-tree --name-only HEAD "$sub/" 2>/dev/null | { grep -E "\.py$" || true; } | while read -r p; do
      git --git-dir="$g" cat-file blob "HEAD:$p" >"$d/$p" 2>/dev/null || true
    done
  done
  printf '%s\t%s\n' "${n/+//}" "$("$bot" inspect --repo "$d" --json | jq -r '[.test.command, .test.inferred_from, .setup.command] | @tsv')"
done
