#!/usr/bin/env bash
# Benchmark: DatasetSync (quarry sync) against rclone and DVC 3 on a local MinIO behind toxiproxy's latency, in the
# same run: full push of a generated dataset into a content-addressed prefix that already holds many unrelated blobs, status
# after one changed file, push of 1% new files, full pull into an empty folder; wall time and requests by kind.
# Usage: e2e/bench/sync.sh [files, default 100000] [unrelated objects, default 1000000] [latency ms, default 10]
# The MinIO data folder holding the unrelated objects is kept under $QUARRY_BENCH_CACHE (default
# ~/.cache/quarry/bench) so that only the first run with a given count fills it (about 15 minutes for a million).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
source e2e/lib/java.sh
e2e/tools/install-packages.sh >/dev/null
e2e/tools/install-test-tools.sh >/dev/null
e2e/tools/install-dvc-env.sh >/dev/null
work=$(mktemp -d /tmp/quarry-bench-sync.XXXXXX)
# QUARRY_BENCH_KEEP=1 keeps the work folder: each command's JSON result, progress and logs.
if [ -n "${QUARRY_BENCH_KEEP:-}" ]; then
  echo "work folder (kept): $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi
# One reactor build, nothing installed: the classpath names this checkout's module jars, not ~/.m2's copies, which
# another build may replace while the benchmark runs. The last module built, e2e, writes the classpath file last.
mvn -q -B -ntp -pl e2e -am package -Dmaven.test.skip=true dependency:build-classpath \
  -Dmdep.outputFile="$work/classpath" -Dmdep.includeScope=runtime
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "e2e/target/classes:$(cat "$work/classpath")" \
  dev.quarry.bench.SyncBench "$root/quarry" "$work" \
  "${QUARRY_BENCH_CACHE:-$HOME/.cache/quarry/bench}" "${1:-100000}" "${2:-1000000}" "${3:-10}"
