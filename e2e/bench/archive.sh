#!/usr/bin/env bash
# Benchmark: read and write throughput of each shard format, against cat (and GNU tar) on the same bytes.
# Usage: e2e/bench/archive.sh [MiB of member data, default 512] [formats..., default all]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
source e2e/lib/java.sh
mib=${1:-512}
shift || true
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(tar tar.gz tar.lz4 zip msgpack)
mvn -q -B -ntp -pl e2e -am install -Dmaven.test.skip=true
work=$(mktemp -d /tmp/quarry-bench-archive.XXXXXX)
trap 'rm -rf "$work"' EXIT
mvn -q -B -ntp -pl e2e dependency:build-classpath -Dmdep.outputFile="$work/classpath" -Dmdep.includeScope=runtime
classpath=$(cat "$work/classpath")
"$JAVA_HOME/bin/java" -Xmx4g --enable-native-access=ALL-UNNAMED -cp "e2e/target/classes:$classpath" dev.quarry.bench.ArchiveBench "$work" "$mib" "${formats[@]}"
