#!/usr/bin/env bash
# The end-to-end suite (e2e/suite/run.sh, the same one the local cluster runs) on kind, for machines with Docker:
# builds the images, creates the cluster and loads them, starts MinIO in the cluster, then runs the suite, which
# installs the chart with Helm and runs each kind with real pods. Needs docker, kind, kubectl, helm, rclone, a JDK
# and Maven (for ./quarry), and mksquashfs (squashfs-tools).
# KEEP_CLUSTER=1 keeps the cluster afterwards; SKIP_BUILD=1 reuses the images.
# Another cluster instead of kind: run e2e/suite/run.sh with the settings it lists (docs/cluster.md).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
need kind docker kubectl helm rclone mksquashfs
[ "${SKIP_BUILD:-}" = 1 ] || "$KIND_DIR/build-images.sh"
"$KIND_DIR/create-cluster.sh"
kubectl config use-context "kind-$KIND_CLUSTER" >/dev/null
port_forward=""
cleanup() {
  [ -z "$port_forward" ] || kill "$port_forward" 2>/dev/null || true
  if [ "${KEEP_CLUSTER:-}" != 1 ]; then kind delete cluster --name "$KIND_CLUSTER"; fi
}
trap cleanup EXIT

sed -e "s|MINIO_IMAGE|$MINIO_IMAGE|" "$KIND_DIR/manifests/minio.yaml" | kubectl apply -f -
kubectl -n quarry-e2e-minio rollout status deploy/minio --timeout 3m
kubectl -n quarry-e2e-minio port-forward svc/minio "$E2E_S3_LOCAL_PORT:9000" >/dev/null &
port_forward=$!
sleep 2

KUBECONFIG=${KUBECONFIG:-$HOME/.kube/config}
export KUBECONFIG
export QUARRY_E2E_OPERATOR_IMAGE=quarry-operator:$QUARRY_TAG QUARRY_E2E_WORKER_IMAGE=quarry-worker:$QUARRY_TAG
export QUARRY_E2E_AGENT_IMAGE=quarry-agent:$QUARRY_TAG QUARRY_E2E_PULL_POLICY=IfNotPresent
export QUARRY_E2E_S3_ENDPOINT=http://minio.quarry-e2e-minio.svc:9000
export QUARRY_E2E_S3_HOST_ENDPOINT=http://127.0.0.1:$E2E_S3_LOCAL_PORT
export QUARRY_E2E_S3_ACCESS_KEY=quarry QUARRY_E2E_S3_SECRET_KEY=quarry-e2e-secret
"$ROOT/e2e/suite/run.sh"
