#!/usr/bin/env bash
# e2e.sh - the end-to-end suite (e2e/suite/run.sh) on the local cluster: builds the three jars (when older than
# their sources) and the three images (images.sh: podman, then an import into the cluster's containerd; an
# unchanged image is not imported again), then runs the suite against the cluster's MinIO. Needs `cluster.sh up`.
# Other QUARRY_E2E_* settings (QUARRY_E2E_PARTS, QUARRY_E2E_KEEP) pass through to the suite.
set -euo pipefail
# shellcheck source=e2e/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
qc_require_root
qc_tools
repo=$QUARRY_CLUSTER_REPO
cd "$repo"
[ -f "$QC_KUBECONFIG" ] && kubectl --kubeconfig "$QC_KUBECONFIG" get --raw /readyz >/dev/null 2>&1 \
  || qc_die "the local cluster is not up: run e2e/cluster/cluster.sh up"

tag=e2e
start=$SECONDS
# The jars, unless they are newer than every source they are built from (as after run-tests.sh's mvn verify).
jars=(operator/target/quarry-operator.jar worker-image/target/quarry.jar node-agent/target/quarry-agent.jar)
stale=0
for jar in "${jars[@]}"; do
  if [ ! -f "$jar" ] || [ -n "$(find pom.xml core crds operator worker-image node-agent -path '*/target' -prune \
      -o -newer "$jar" -type f -print -quit)" ]; then stale=1; fi
done
if [ "$stale" = 1 ]; then
  qc_say "jars (mvn package, tests skipped)"
  # shellcheck source=e2e/lib/java.sh
  source e2e/lib/java.sh
  mvn -B -q -ntp -o -pl operator,worker-image,node-agent -am package -Dmaven.test.skip=true
fi
qc_say "images quarry/{operator,worker,agent}:$tag"
"$repo/e2e/cluster/images.sh" base
"$repo/e2e/cluster/images.sh" build operator/Dockerfile . "quarry/operator:$tag"
"$repo/e2e/cluster/images.sh" build worker-image/Dockerfile . "quarry/worker:$tag"
"$repo/e2e/cluster/images.sh" build node-agent/Dockerfile . "quarry/agent:$tag"
# The images these replaced: podman's vfs storage keeps whole copies of every layer.
"$repo/e2e/cluster/images.sh" prune >/dev/null
qc_say "jars and images ready in $((SECONDS - start)) s"

export KUBECONFIG=$QC_KUBECONFIG HELM=$QUARRY_TOOLS_DIR/bin/helm
export QUARRY_E2E_OPERATOR_IMAGE=quarry/operator:$tag QUARRY_E2E_WORKER_IMAGE=quarry/worker:$tag
export QUARRY_E2E_AGENT_IMAGE=quarry/agent:$tag QUARRY_E2E_PULL_POLICY=IfNotPresent
export QUARRY_E2E_S3_ENDPOINT=$QC_MINIO_ENDPOINT QUARRY_E2E_S3_ACCESS_KEY=$QC_MINIO_ACCESS_KEY
export QUARRY_E2E_S3_SECRET_KEY=$QC_MINIO_SECRET_KEY QUARRY_E2E_HOST_IS_NODE=1
status=0
"$repo/e2e/suite/run.sh" || status=$?
# The node is this machine: the empty folders the suite's pods had kubelet create (rmdir leaves anything else).
rmdir /mnt/quarry-e2e /var/lib/quarry-e2e 2>/dev/null || true
exit "$status"
