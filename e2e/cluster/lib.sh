# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the scripts that source it
# Sourced by e2e/cluster/*.sh: the fixed layout of the local cluster (paths, ports, addresses) and small helpers.
# Ports and subnets are fixed and uncommon so the cluster never collides with the etcd, kube-apiserver and MinIO
# instances that unit tests start on random loopback ports.

QUARRY_CLUSTER_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
QUARRY_CACHE=${QUARRY_CACHE:-$HOME/.cache/quarry}
QUARRY_TOOLS_DIR=${QUARRY_TOOLS_DIR:-$QUARRY_CACHE/tools}
# Everything the running cluster owns: certificates, kubeconfigs, etcd data, containerd's root (the imported
# images survive `down`), kubelet's root, logs and pid files. `purge` removes it.
QUARRY_CLUSTER_DIR=${QUARRY_CLUSTER_DIR:-$QUARRY_CACHE/cluster}
# Image build caches (Debian root filesystem, jlinked runtime, podman storage), kept across `purge`.
QUARRY_IMAGES_DIR=${QUARRY_IMAGES_DIR:-$QUARRY_CACHE/images}

QC_PKI=$QUARRY_CLUSTER_DIR/pki
QC_LOGS=$QUARRY_CLUSTER_DIR/logs
QC_RUN=$QUARRY_CLUSTER_DIR/run
QC_KUBECONFIG=$QUARRY_CLUSTER_DIR/admin.kubeconfig
QC_CONTAINERD_SOCK=$QC_RUN/containerd/containerd.sock

QC_NODE=quarry-node
# The node's address is the CNI bridge's gateway: pods reach the API server (through the kubernetes Service),
# MinIO and the kubelet there, and nothing of the cluster listens on the machine's own network interface.
QC_BRIDGE=quarrybr0
QC_POD_SUBNET=10.213.0.0/24
QC_NODE_IP=10.213.0.1
QC_SERVICE_CIDR=10.213.128.0/24
QC_KUBERNETES_SERVICE_IP=10.213.128.1

QC_ETCD_PORT=23379
QC_ETCD_PEER_PORT=23380
QC_APISERVER_PORT=26443
QC_KUBELET_PORT=20250
QC_KUBELET_HEALTHZ_PORT=20248
QC_KUBE_PROXY_HEALTHZ_PORT=20256
QC_KUBE_PROXY_METRICS_PORT=20249
QC_CONTROLLER_MANAGER_PORT=20257
QC_SCHEDULER_PORT=20259
QC_CONTAINERD_STREAM_PORT=20010
QC_MINIO_PORT=29000
QC_MINIO_CONSOLE_PORT=29001
QC_MINIO_ENDPOINT=http://$QC_NODE_IP:$QC_MINIO_PORT
QC_MINIO_ACCESS_KEY=quarry
QC_MINIO_SECRET_KEY=quarry-e2e-secret

# Images live in containerd's k8s.io namespace under fully qualified names, so that the name kubelet asks for
# is the name that was imported (a short name would be read as docker.io/library/...).
QC_PAUSE_IMAGE=quarry.local/pause:3.10.1
QC_BASE_IMAGE=quarry.local/jre-base:local

qc_die() { printf '%s: ERROR: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }
qc_say() { printf '== %s\n' "$*"; }

qc_require_root() {
  [ "$(id -u)" -eq 0 ] || qc_die "the local cluster needs root (it runs containerd, kubelet and mounts); run as root"
}

# Loads the tool versions and puts the cached tools first on PATH, building them when missing.
qc_tools() {
  if [ ! -f "$QUARRY_TOOLS_DIR/versions.env" ] || [ ! -x "$QUARRY_TOOLS_DIR/bin/kube-proxy" ]; then
    "$QUARRY_CLUSTER_REPO/e2e/tools/install-test-tools.sh" >&2
  fi
  # shellcheck disable=SC1091
  source "$QUARRY_TOOLS_DIR/versions.env"
  export PATH="$QUARRY_TOOLS_BIN:$PATH"
}

qc_ctr() { ctr --address "$QC_CONTAINERD_SOCK" --namespace k8s.io "$@"; }
