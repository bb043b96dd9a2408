#!/usr/bin/env bash
# Builds the three jars and the operator, worker and agent images (tag $QUARRY_TAG, base $JRE_IMAGE).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
need docker mvn
source "$ROOT/e2e/lib/java.sh"
(cd "$ROOT" && mvn -B -q -ntp -pl operator,worker-image,node-agent -am package -Dmaven.test.skip=true)
for image in operator:operator worker:worker-image agent:node-agent; do
  name=${image%%:*} module=${image#*:}
  docker build --build-arg "JRE_IMAGE=$JRE_IMAGE" -f "$ROOT/$module/Dockerfile" -t "quarry-$name:$QUARRY_TAG" "$ROOT"
done
