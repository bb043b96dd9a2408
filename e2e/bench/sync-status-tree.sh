#!/usr/bin/env bash
# Benchmark: `quarry sync status` after one changed file in a big nested tree (issue 21: 1000 folders of 1000 files,
# status in at most 3 s and 50 requests). Tiny files (16 bytes each), pushed once untimed into a folder remote; then
# one file changes and status runs twice (the second finds the state database in the page cache); wall time and
# CPU seconds of each, requests from its JSON result, and whether the goals are met.
# Usage: e2e/bench/sync-status-tree.sh [folders, default 1000] [files per folder, default 1000]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
source e2e/lib/java.sh
folders=${1:-1000}
per_folder=${2:-1000}
work=$(mktemp -d /tmp/quarry-bench-status-tree.XXXXXX)
trap 'rm -rf "$work"' EXIT
data="$work/data"
echo "bench: writing $folders folders of $per_folder files under $data" >&2
python3 - "$data" "$folders" "$per_folder" <<'EOF'
import os, sys
data, folders, per_folder = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(folders):
    folder = os.path.join(data, "d%04d" % d)
    os.makedirs(folder)
    for f in range(per_folder):
        with open(os.path.join(folder, "f%04d" % f), "wb") as out:
            out.write(b"%08d%08d" % (d, f))
EOF
remote="$work/remote"
state="$work/state"
echo "bench: pushing (untimed)" >&2
./quarry sync push "$data" --remote "$remote" --state-dir "$state" --json > "$work/push.json" 2> "$work/push.err"
changed="$data/d$(printf %04d $((folders / 2)))/f0000"
printf 'changed!changed!' > "$changed"
for run in 1 2; do
  /usr/bin/time -f "%e %U %S" -o "$work/time-$run" ./quarry sync status "$data" --remote "$remote" \
    --state-dir "$state" --json > "$work/status-$run.json" 2> "$work/status-$run.err"
done
python3 - "$work" "$folders" "$per_folder" <<'EOF'
import json, sys
work, folders, per_folder = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print("status after one change in %d folders of %d files (%d files), folder remote" % (
    folders, per_folder, folders * per_folder))
print("%-5s %8s %8s %8s %10s %s" % ("run", "wall s", "CPU s", "engine s", "requests", "HEAD/LIST/GET/PUT/DEL"))
for run in (1, 2):
    wall, user, system = (float(x) for x in open("%s/time-%d" % (work, run)).read().split())
    result = json.load(open("%s/status-%d.json" % (work, run)))
    r = result["requests"]
    kinds = [r.get(k, 0) for k in ("head", "list", "get", "put", "delete")]
    print("%-5d %8.2f %8.2f %8.2f %10d %s" % (run, wall, user + system, result["elapsedSeconds"], sum(kinds),
                                              "/".join(map(str, kinds))))
    if run == 2:
        print("goals (issue 21, for 1000 x 1000):")
        print("  %-8s at most 3 s (%.2f s)" % ("met" if wall <= 3 else "NOT MET", wall))
        print("  %-8s at most 50 requests (%d)" % ("met" if sum(kinds) <= 50 else "NOT MET", sum(kinds)))
EOF
