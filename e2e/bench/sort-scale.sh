#!/usr/bin/env bash
# Benchmark: the store traffic of the shard sort as its workers grow. For each record size, shuffle and
# alphanumeric, and each worker count W: W extract workers, W partition steps and W create workers, each index its own
# quarry process, on a local MinIO; prints bytes read and written per input byte and requests per GiB (MinIO's own
# counters) and the most records one process ordered. Counts, not timings.
# Usage: e2e/bench/sort-scale.sh [record sizes, default 10Ki,100Ki] [worker counts, default 1,2,4]
#        [MiB per dataset, default 32] [orders, default shuffle,alphanumeric; also content (by the .cls member), none]
# Input shards: 16, or as many as the largest W (every extract worker gets one); output shards twice that.
# QUARRY_BENCH_AT_ONCE (default 4) is how many quarry processes run at once; QUARRY_BENCH_INPUT_SHARDS sets more input
# shards than that (output shards twice as many: 64 inputs put a single create worker's 128 shards in 2 batches);
# QUARRY_BENCH_BUDGET (default 256Mi) is each process's memory budget (16Mi makes extract workers spill their entries).
# The issue's full grid: e2e/bench/sort-scale.sh 1Ki,10Ki,100Ki,1Mi 1,2,4,8,16,32,64 1024 (hours on 2 cores).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
source e2e/lib/java.sh
e2e/tools/install-test-tools.sh >/dev/null
mvn -q -B -ntp -pl e2e -am install -Dmaven.test.skip=true
work=$(mktemp -d /tmp/quarry-bench-sort-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT
mvn -q -B -ntp -pl e2e dependency:build-classpath -Dmdep.outputFile="$work/classpath" -Dmdep.includeScope=runtime
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "e2e/target/classes:$(cat "$work/classpath")" \
  dev.quarry.bench.SortScaleBench "$root/quarry" "$work" "${3:-32}" "${1:-10Ki,100Ki}" "${2:-1,2,4}" \
  "${4:-shuffle,alphanumeric}"
