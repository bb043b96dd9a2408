#!/usr/bin/env bash
# Benchmark: shuffle a generated dataset into large shards on a local MinIO, as separate phase processes and as
# one `quarry sort run`, each against a client-side copy of the same objects in the same run.
# Usage: e2e/bench/sort.sh [GiB, default 2] [shard size, default 256Mi] [extract workers, default 1]
#        [create workers, default 1] [rounds, default 5]
# QUARRY_BENCH_FORMATS=input:output sets the formats of the generated inputs and of the output shards (default
# tar:tar; zip:zip measures extract's repacking and create's conversion).
# One worker per phase by default, as fits 2 cores shared with MinIO: each worker JVM spends about 1.3 CPU seconds
# starting and compiling, so a second extract worker makes extract slower here (3.8 to 4.6 s against 2.8 to 3.4 s),
# and each create worker of a shuffle streams nearly all of the input (docs/development.md, "The sort benchmark").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
source e2e/lib/java.sh
e2e/tools/install-test-tools.sh >/dev/null
mvn -q -B -ntp -pl e2e -am install -Dmaven.test.skip=true
work=$(mktemp -d /tmp/quarry-bench-sort.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Copies of the jars, not ~/.m2's: a build of the same snapshot elsewhere (another checkout) replaces those while the
# benchmark runs, and its next class load failed (NoClassDefFoundError) after the first round.
mvn -q -B -ntp -pl e2e dependency:copy-dependencies -DoutputDirectory="$work/lib" -DincludeScope=runtime
"$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "e2e/target/classes:$work/lib/*" \
  dev.quarry.bench.SortBench "$root/quarry" "$work" "${1:-2}" "${2:-256Mi}" "${3:-1}" "${4:-1}" "${5:-5}"
