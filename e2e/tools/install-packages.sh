#!/usr/bin/env bash
# Installs the Debian packages Quarry's tests use, only those missing (apt-get update runs only then).
set -euo pipefail

# Real archive tools and filesystems the tests check our output against.
packages=(tar gzip zip unzip lz4 squashfs-tools python3 python3-venv curl openssl python3-msgpack)
# The baseline e2e/bench/sync.sh measures DatasetSync against.
packages+=(rclone)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "packages: all present (${packages[*]})"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "packages: Cannot install ${missing[*]}: not root. Install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "packages: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "packages: installed ${missing[*]}"
