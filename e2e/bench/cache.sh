#!/usr/bin/env bash
# Benchmark of the NodeCache engine on real loop mounts (needs root): cold reads from the source mount and the cached
# copy against cat, hot-to-local time against cp, the live switch under 8 readers, and decision time for 10k images.
# Usage: e2e/bench/cache.sh [image MiB, default 1024]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
source e2e/lib/java.sh
mib=${1:-1024}
if [ "$(id -u)" -ne 0 ]; then
  echo "cache.sh: Cannot mount images: run as root (loop mounts and drop_caches need it)" >&2
  exit 1
fi
mvn -q -B -ntp -pl e2e -am install -Dmaven.test.skip=true
work=$(mktemp -d /var/tmp/quarry-bench-cache.XXXXXX)
trap 'rm -rf "$work"' EXIT
mvn -q -B -ntp -pl e2e dependency:build-classpath -Dmdep.outputFile="$work/classpath" -Dmdep.includeScope=runtime
classpath=$(cat "$work/classpath")
"$JAVA_HOME/bin/java" -Xmx2g -cp "e2e/target/classes:$classpath" dev.quarry.bench.CacheBench "$work" "$mib"
