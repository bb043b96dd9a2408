#!/usr/bin/env bash
# Makes the Python environment the DVC compatibility tests and the sync benchmark run DVC from: DVC 3 with its S3
# remote (dvc-s3), pinned, in a venv of its own (DVC's dependencies are many and must not disturb WebDataset's),
# cached under ~/.cache/quarry/dvc. Reruns take well under a second.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/venv.sh"

DVC_VERSION=3.67.1
DVC_S3_VERSION=3.3.0

pinned_venv dvc "${QUARRY_DVC_DIR:-$HOME/.cache/quarry/dvc}" "dvc==$DVC_VERSION" "dvc-s3==$DVC_S3_VERSION" \
  -- dvc version
