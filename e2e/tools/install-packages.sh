#!/usr/bin/env bash
# Installs the Debian packages Quarry's tests use, only those missing (apt-get update runs only then).
# Usage: install-packages.sh [--cluster]
#   --cluster   also the packages of the local Kubernetes cluster (e2e/cluster/cluster.sh) and its images
set -euo pipefail

cluster=0
for arg in "$@"; do
  case "$arg" in
    --cluster) cluster=1 ;;
    *) echo "install-packages.sh: unknown argument: $arg (usage: install-packages.sh [--cluster])" >&2; exit 2 ;;
  esac
done

# Real archive tools and filesystems the tests check our output against.
packages=(tar gzip zip unzip lz4 squashfs-tools python3 python3-venv curl openssl python3-msgpack)
# The baseline e2e/bench/sync.sh measures DatasetSync against.
packages+=(rclone)
if [ "$cluster" -eq 1 ]; then
  # The node: container runtime, CNI plugins, the tools kubelet and kube-proxy call (iptables, conntrack,
  # mount/losetup from util-linux), openssl for the certificates.
  packages+=(containerd runc containernetworking-plugins iptables conntrack iproute2 util-linux openssl)
  # The images: a Debian root filesystem for the base image, podman to build from Dockerfiles, gcc for the
  # static pause binary.
  packages+=(debootstrap podman gcc libc6-dev)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep 'install ok installed' >/dev/null || missing+=("$package")
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
