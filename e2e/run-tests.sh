#!/usr/bin/env bash
# Runs every test of Quarry on this machine: installs what the tests need (system packages, the test servers
# built from Go modules, cached under ~/.cache/quarry), then builds and verifies every Maven module, then runs
# the tests on a real local Kubernetes cluster (e2e/cluster/), when this machine can run one.
# Extra arguments go to Maven, for example: e2e/run-tests.sh -pl core -am
# QUARRY_SKIP_CLUSTER=1 skips the cluster stage (it needs root; smoke test and end-to-end suite: about 5 minutes
# the first time on a machine, 3 minutes later).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source e2e/lib/java.sh

start=$(date +%s)
echo "== Java: $JAVA_HOME ($("$JAVA_HOME/bin/java" -version 2>&1 | sed -n 1p))"
echo "== System packages"
e2e/tools/install-packages.sh
echo "== Test servers"
e2e/tools/install-test-tools.sh
echo "== Python (WebDataset)"
e2e/tools/install-python-env.sh
echo "== Python (DVC)"
e2e/tools/install-dvc-env.sh
echo "== Java 21 (the default images' runtime)"
e2e/tools/install-java21-env.sh
# shellcheck disable=SC1091
source "${QUARRY_TOOLS_DIR:-$HOME/.cache/quarry/tools}/versions.env"
export QUARRY_TOOLS_BIN

echo "== Maven verify"
mvn -B -ntp verify "$@"

# ---- optional stage: a real single-node cluster (docs/cluster.md) ----
if [ "${QUARRY_SKIP_CLUSTER:-0}" = 1 ]; then
  echo "== Local cluster: skipped (QUARRY_SKIP_CLUSTER=1)"
elif [ "$(id -u)" -ne 0 ]; then
  echo "== Local cluster: skipped (it needs root: containerd, kubelet and mounts)"
else
  echo "== Local cluster (QUARRY_SKIP_CLUSTER=1 skips this stage)"
  e2e/tools/install-packages.sh --cluster
  # Stop the cluster afterwards only if this run started it.
  if ! e2e/cluster/cluster.sh status >/dev/null 2>&1; then
    trap 'e2e/cluster/cluster.sh down' EXIT
  fi
  e2e/cluster/cluster.sh up
  e2e/cluster/smoke-test.sh
  # The end-to-end suite of the three kinds (docs/cluster.md#the-end-to-end-suite).
  e2e/cluster/e2e.sh
fi
echo "== All tests passed in $(( $(date +%s) - start )) s"
