#!/usr/bin/env bash
# Benchmark: one change in a flat folder of many files (docs/formats.md, "Chunked folders"). Pushes a folder of N
# files of 0 or 1 bytes to a folder remote, changes one file, then measures status (wall time of the command and
# its requests) and the manifest bytes the next push uploads (the growth of the remote's trees/, which nothing else
# writes). Goals for 1,000,000 files: at most 1 MiB of manifests per change, status in at most 3 s and 50 requests.
# Usage: e2e/bench/sync-flat.sh [files, default 1000000]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
files=${1:-1000000}
work=$(mktemp -d /tmp/quarry-bench-flat.XXXXXX)
trap 'rm -rf "$work"' EXIT
data="$work/data"
remote="$work/cas"

python3 - "$data" "$files" <<'EOF'
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
os.makedirs(folder)
for i in range(count):
    with open(os.path.join(folder, "img-%07d.jpg" % i), "wb") as f:
        if i % 1000 == 0:
            f.write(b"x")
EOF

tree_bytes() {
  if [ -d "$remote/trees" ]; then
    find "$remote/trees" -type f -printf '%s\n' | awk '{ total += $1 } END { print total + 0 }'
  else
    echo 0
  fi
}
# Seconds of wall time of a command, its JSON result in $work/$1.json, its CPU seconds (user and system) in
# $work/$1.cpu.
timed() {
  local name=$1
  shift
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$work/$name.cpu" "$@" --json >"$work/$name.json" 2>"$work/$name.log"
  end=$(date +%s.%N)
  python3 -c 'import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))' "$start" "$end"
}
field() {
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"r": r}))' "$@"
}

push_seconds=$(timed push ./quarry sync push "$data" --remote "$remote")
whole=$(tree_bytes)
printf 'y' >"$data/img-$(printf %07d $((files / 2))).jpg"
status_seconds=$(timed status ./quarry sync status "$data" --remote "$remote")
status_requests=$(field "$work/status.json" 'sum(r["requests"].values())')
status_cpu=$(awk '{ print $1 + $2 }' "$work/status.cpu")
# The local scan (stat of every file, the state database) is part of status but not of what chunking changes.
status_scan=$(sed -n 's/^scanned .* \([0-9.]*\) s$/\1/p' "$work/status.log" | tail -1)
timed push2 ./quarry sync push "$data" --remote "$remote" >/dev/null
change=$(( $(tree_bytes) - whole ))

echo "flat folder of $files files, folder remote"
echo "  first push:                              ${push_seconds} s, manifests ${whole} bytes"
echo "  manifest bytes uploaded for one change:  ${change} bytes (goal <= 1048576)"
echo "  status after one change:                 ${status_seconds} s (local scan ${status_scan} s, ${status_cpu} CPU s), ${status_requests} requests (goals <= 3 s, <= 50)"
