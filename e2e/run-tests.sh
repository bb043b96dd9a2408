#!/usr/bin/env bash
# Runs every test of Quarry on this machine: installs what the tests need (system packages, the test servers
# built from Go modules, cached under ~/.cache/quarry), then builds and verifies every Maven module.
# Extra arguments go to Maven, for example: e2e/run-tests.sh -pl core -am
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source e2e/lib/java.sh

start=$(date +%s)
echo "== Java: $JAVA_HOME ($("$JAVA_HOME/bin/java" -version 2>&1 | head -1))"
echo "== System packages"
e2e/tools/install-packages.sh
echo "== Test servers"
e2e/tools/install-test-tools.sh
echo "== Python (WebDataset)"
e2e/tools/install-python-env.sh
# shellcheck disable=SC1091
source "${QUARRY_TOOLS_DIR:-$HOME/.cache/quarry/tools}/versions.env"
export QUARRY_TOOLS_BIN

echo "== Maven verify"
mvn -B -ntp verify "$@"
echo "== All tests passed in $(( $(date +%s) - start )) s"
