#!/usr/bin/env bash
# Makes the Python environment the DVC compatibility tests and the sync benchmark run DVC from: DVC 3 with its S3
# remote (dvc-s3), pinned, in a venv of its own (DVC's dependencies are many and must not disturb WebDataset's),
# cached under ~/.cache/quarry/dvc. Reruns take well under a second.
set -euo pipefail

DVC_VERSION=3.67.1
DVC_S3_VERSION=3.3.0

venv=${QUARRY_DVC_DIR:-$HOME/.cache/quarry/dvc}
stamp="$venv/.complete-dvc-$DVC_VERSION-dvc-s3-$DVC_S3_VERSION"
if [ -f "$stamp" ]; then
  echo "dvc: cached ($venv: dvc $DVC_VERSION, dvc-s3 $DVC_S3_VERSION)"
  exit 0
fi
start=$(date +%s)
rm -rf "$venv"
python3 -m venv "$venv"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "dvc==$DVC_VERSION" "dvc-s3==$DVC_S3_VERSION" > "$venv.log" 2>&1; then
  tail -20 "$venv.log" >&2
  echo "install-dvc-env.sh: ERROR: pip could not install dvc $DVC_VERSION; full log: $venv.log" >&2
  exit 1
fi
"$venv/bin/dvc" version > /dev/null
touch "$stamp"
echo "dvc: installed dvc $DVC_VERSION and dvc-s3 $DVC_S3_VERSION into $venv in $(( $(date +%s) - start )) s"
