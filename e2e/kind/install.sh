#!/usr/bin/env bash
# Installs (or upgrades) the chart with the locally built images, CRDs first: helm upgrade never changes CRDs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
need kubectl helm
kubectl config use-context "kind-$KIND_CLUSTER" >/dev/null
kubectl apply --server-side -f "$ROOT/charts/quarry/crds/"
helm upgrade --install quarry "$ROOT/charts/quarry" --namespace "$QUARRY_NAMESPACE" --create-namespace \
  --set operator.image.registry= --set operator.image.repository=quarry-operator \
  --set operator.image.tag="$QUARRY_TAG" --set operator.image.pullPolicy=Never \
  --set worker.image.registry= --set worker.image.repository=quarry-worker \
  --set worker.image.tag="$QUARRY_TAG" --set worker.image.pullPolicy=Never \
  --set agent.image.registry= --set agent.image.repository=quarry-agent \
  --set agent.image.tag="$QUARRY_TAG" --set agent.image.pullPolicy=Never \
  --wait --timeout 3m
kubectl -n "$QUARRY_NAMESPACE" rollout status deploy/quarry-operator --timeout 2m
