#!/usr/bin/env bash
# Makes the Python environment the compatibility tests read our output with: WebDataset (the loader ML users
# run) and msgpack, pinned, in a venv cached under ~/.cache/quarry/python. Reruns take well under a second.
set -euo pipefail

WEBDATASET_VERSION=1.0.2
MSGPACK_VERSION=1.2.4

venv=${QUARRY_PYTHON_DIR:-$HOME/.cache/quarry/python}
stamp="$venv/.complete-webdataset-$WEBDATASET_VERSION-msgpack-$MSGPACK_VERSION"
if [ -f "$stamp" ]; then
  echo "python: cached ($venv: webdataset $WEBDATASET_VERSION, msgpack $MSGPACK_VERSION)"
  exit 0
fi
start=$(date +%s)
rm -rf "$venv"
python3 -m venv "$venv"
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "webdataset==$WEBDATASET_VERSION" "msgpack==$MSGPACK_VERSION" > "$venv.log" 2>&1; then
  tail -20 "$venv.log" >&2
  echo "install-python-env.sh: ERROR: pip could not install webdataset $WEBDATASET_VERSION; full log: $venv.log" >&2
  exit 1
fi
"$venv/bin/python" -c "import webdataset, msgpack"
touch "$stamp"
echo "python: installed webdataset $WEBDATASET_VERSION and msgpack $MSGPACK_VERSION into $venv in $(( $(date +%s) - start )) s"
