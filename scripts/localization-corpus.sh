#!/usr/bin/env bash
# Materialises the localization corpus: for every line of
# test/bench/localization/corpus.jsonl, the repository's tree at the issue's
# base commit, into the gitignored test/bench/localization/testdata/trees/<id>/ (testdata: go ./... never reads it).
#
# The repositories come from mirrors on this machine (MIRRORS, default
# /work/.mirror/<owner>+<name>/repo, as the search tool's fetch leaves them).
# A tree shares the mirror's objects (git alternates) instead of copying them;
# blobs the mirror lacks (snapshots leave out files of 4 MiB and more) are
# skipped. Trees already there are kept. Nothing here is ever committed.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${CORPUS:-test/bench/localization/corpus.jsonl}
trees=test/bench/localization/testdata/trees
mirrors=${MIRRORS:-/work/.mirror}
mkdir -p "$trees"
missing=0
while IFS=$'\t' read -r id repo base; do
  dir=$trees/$id
  [ -e "$dir/.done" ] && continue
  git_dir=$mirrors/${repo/\//+}/repo
  if [ ! -d "$git_dir" ]; then
    echo "localization-corpus: no mirror for $repo at $git_dir (fetch it first)" >&2
    missing=$((missing + 1)); continue
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  git -C "$dir" init -q
  echo "$(cd "$git_dir" && pwd)/objects" > "$dir/.git/objects/info/alternates"
  # Entries whose blob is present, as update-index wants them.
  git --git-dir="$git_dir" ls-tree -r "$base" |
    awk -F'\t' '$1 !~ /^160000/ {print}' |
    while IFS=$'\t' read -r meta path; do
      printf '%s\t%s\n' "$meta" "$path"
    done > "$dir/.git/entries"
  cut -d' ' -f3 "$dir/.git/entries" | cut -f1 | git --git-dir="$git_dir" cat-file --batch-check='%(objectname) %(objecttype)' 2>/dev/null |
    awk '$2 == "blob" {print $1}' | sort -u > "$dir/.git/present"
  awk 'NR==FNR {ok[$1]=1; next} {split($0, a, "\t"); split(a[1], m, " "); if (m[3] in ok) print}' \
    "$dir/.git/present" "$dir/.git/entries" | git -C "$dir" update-index --index-info
  git -C "$dir" checkout-index -a -f
  GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
    git -C "$dir" -c user.name=corpus -c user.email=corpus@localhost commit -q --no-verify -m "$repo@$base"
  rm -f "$dir/.git/entries" "$dir/.git/present"
  touch "$dir/.done"
  echo "localization-corpus: $id ($(git -C "$dir" ls-files | wc -l) files)"
done < <(jq -r '[.id, .repo, .base] | @tsv' "$corpus")
[ "$missing" -eq 0 ] || { echo "localization-corpus: $missing trees missing" >&2; exit 1; }
