#!/usr/bin/env bash
# End-to-end on kind, for machines with Docker (not part of CI): builds the images, creates the cluster, installs
# the chart, then runs each kind for real against an in-cluster MinIO:
#   1. a ShardSortJob shuffles a generated dataset and commits a manifest;
#   2. a DatasetSync pushes a folder on a PVC and reports its version;
#   3. a NodeCache runs an agent on every node, each reports, and deletion cleans up.
# KEEP_CLUSTER=1 keeps the cluster afterwards; SKIP_BUILD=1 reuses the images.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
need kind docker kubectl helm
[ "${SKIP_BUILD:-}" = 1 ] || "$KIND_DIR/build-images.sh"
"$KIND_DIR/create-cluster.sh"
"$KIND_DIR/install.sh"
cleanup() {
  if [ "${KEEP_CLUSTER:-}" != 1 ]; then kind delete cluster --name "$KIND_CLUSTER"; fi
}
trap cleanup EXIT

wait_for() { # kind name jsonpath value timeout
  local deadline=$((SECONDS + $5))
  until [ "$(kubectl -n "$E2E_NAMESPACE" get "$1" "$2" -o "jsonpath=$3" 2>/dev/null)" = "$4" ]; do
    if [ $SECONDS -ge $deadline ]; then
      echo "kind e2e: $1/$2 did not reach $3=$4; it is:" >&2
      kubectl -n "$E2E_NAMESPACE" get "$1" "$2" -o yaml >&2 || true
      kubectl -n "$E2E_NAMESPACE" get events --sort-by=.lastTimestamp >&2 || true
      exit 1
    fi
    sleep 3
  done
}

kubectl create namespace "$E2E_NAMESPACE" --dry-run=client -o yaml | kubectl apply -f -
sed -e "s|MINIO_IMAGE|$MINIO_IMAGE|" -e "s|MC_IMAGE|$MC_IMAGE|" -e "s|QUARRY_WORKER_IMAGE|quarry-worker:$QUARRY_TAG|" \
  "$KIND_DIR/manifests/minio.yaml" | kubectl -n "$E2E_NAMESPACE" apply -f -
kubectl -n "$E2E_NAMESPACE" rollout status deploy/minio --timeout 3m
kubectl -n "$E2E_NAMESPACE" wait --for=condition=complete job/dataset --timeout 5m

echo "== ShardSortJob"
kubectl -n "$E2E_NAMESPACE" apply -f "$KIND_DIR/manifests/shardsortjob.yaml"
wait_for ssj e2e-shuffle '{.status.phase}' Succeeded 600
kubectl -n "$E2E_NAMESPACE" get ssj e2e-shuffle
wait_for ssj e2e-shuffle '{.status.conditions[?(@.type=="ScratchRemoved")].status}' True 300

echo "== DatasetSync"
kubectl -n "$E2E_NAMESPACE" apply -f "$KIND_DIR/manifests/volume.yaml"
kubectl -n "$E2E_NAMESPACE" wait --for=condition=complete job/e2e-data-writer --timeout 3m
kubectl -n "$E2E_NAMESPACE" apply -f "$KIND_DIR/manifests/datasetsync.yaml"
wait_for dss e2e-push '{.status.phase}' Succeeded 600
kubectl -n "$E2E_NAMESPACE" get dss e2e-push -o wide

echo "== NodeCache"
kubectl apply -f "$KIND_DIR/manifests/nodecache.yaml"
# Every node's agent reports, and the status names the missing image file (an actionable Degraded).
nodes=$(kubectl get nodes -o name | wc -l)
deadline=$((SECONDS + 300))
until [ "$(kubectl get ncr -l quarry.dev/nodecache=e2e-cache -o name | wc -l)" -eq "$nodes" ] \
    && [ "$(kubectl get nc e2e-cache -o 'jsonpath={.status.phase}')" = Degraded ]; do
  [ $SECONDS -lt $deadline ] || { kubectl get nc e2e-cache -o yaml; kubectl get ncr; exit 1; }
  sleep 3
done
kubectl get nc e2e-cache -o 'jsonpath={.status.conditions[0].message}' | grep -q missing.sqfs
kubectl get nc e2e-cache
# Deletion: each agent removes its mounts and its report, then the NodeCache and its DaemonSet go.
kubectl delete nc e2e-cache --timeout 3m
[ "$(kubectl get ncr -l quarry.dev/nodecache=e2e-cache -o name | wc -l)" -eq 0 ]
echo "kind e2e: all passed"
