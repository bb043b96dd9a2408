#!/usr/bin/env bash
# Benchmark of the control plane on a real kube-apiserver (testkit): simulated agents writing their NodeCacheReports
# every 30 s and ShardSortJobs created at once, with the operator in its own process (the chart's heap). Runs the IT
# that CI runs with a small load (ControlPlaneScaleIT), here with the full one, and prints the table of
# docs/operations.md ("Scale of the control plane"): API requests by verb per minute, reconciles, status writes,
# operator CPU and RSS. The test fails when a goal is missed.
# Usage: e2e/bench/control-plane.sh [agents, default 1000] [jobs, default 100] [seconds of load, default 180]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
source e2e/lib/java.sh
agents=${1:-1000}
jobs=${2:-100}
seconds=${3:-180}
if [ -z "${QUARRY_TOOLS_BIN:-}" ]; then
  QUARRY_TOOLS_BIN=$(. ~/.cache/quarry/tools/versions.env; echo "$QUARRY_TOOLS_BIN")
  export QUARRY_TOOLS_BIN
fi
status=0
mvn -q -B -ntp -pl operator -am verify -Dit.test=ControlPlaneScaleIT -Dtest=none \
  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dquarry.scale.agents="$agents" -Dquarry.scale.jobs="$jobs" -Dquarry.scale.seconds="$seconds" || status=$?
cat operator/target/control-plane-scale.md 2>/dev/null || echo "control-plane.sh: no table: the test did not get that far (see operator/target/failsafe-reports)" >&2
exit "$status"
