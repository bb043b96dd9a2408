#!/usr/bin/env bash
# Creates the kind cluster (one control plane, two workers) unless it exists, and loads the images into it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
need kind docker
if ! kind get clusters | grep -x "$KIND_CLUSTER" >/dev/null; then
  kind create cluster --name "$KIND_CLUSTER" --config "$KIND_DIR/manifests/kind-config.yaml" --wait 120s
fi
for name in operator worker agent; do
  kind load docker-image --name "$KIND_CLUSTER" "quarry-$name:$QUARRY_TAG"
done
