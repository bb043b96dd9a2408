#!/usr/bin/env bash
# Makes the Python environment the compatibility tests read our output with: WebDataset (the loader ML users
# run) and msgpack, pinned, in a venv cached under ~/.cache/quarry/python. Reruns take well under a second.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/venv.sh"

WEBDATASET_VERSION=1.0.2
MSGPACK_VERSION=1.2.4

pinned_venv python "${QUARRY_PYTHON_DIR:-$HOME/.cache/quarry/python}" "webdataset==$WEBDATASET_VERSION" \
  "msgpack==$MSGPACK_VERSION" -- python -c "import webdataset, msgpack"
