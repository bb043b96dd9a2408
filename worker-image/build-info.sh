#!/usr/bin/env bash
# Writes what `quarry --version` says of the build (worker-image/pom.xml runs this before the classes are packed):
# the version, and the git commit of the checkout the jar is built from, "-modified" when tracked files differ
# from it, or "unknown" when the sources are not a git checkout (a source archive) or git is missing.
# Usage: build-info.sh FILE VERSION
set -euo pipefail
file=$1 version=$2
here=$(dirname "${BASH_SOURCE[0]}")
commit=unknown
if head=$(git -C "$here" rev-parse --short=12 HEAD 2>/dev/null); then
  commit=$head
  git -C "$here" diff --quiet HEAD 2>/dev/null || commit="$commit-modified"
fi
mkdir -p "$(dirname "$file")"
printf 'version=%s\ncommit=%s\n' "$version" "$commit" >"$file"
