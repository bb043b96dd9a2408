#!/usr/bin/env bash
# cluster.sh - a real single-node Kubernetes cluster on this machine, brought up from parts: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kube-proxy and kubelet (built from Go modules by
# e2e/tools/install-test-tools.sh), containerd, runc and the CNI plugins from Debian, MinIO on the node address.
# kind needs a Docker engine, which these machines lack; see docs/cluster.md for how it works.
#
# Usage: e2e/cluster/cluster.sh COMMAND
#   up          start the cluster (idempotent: seconds when it is already up); prints the kubeconfig path
#   down        stop everything it started and undo every mount, link, iptables chain and sysctl it made
#   purge       down, then delete the cluster's state (certificates, etcd, images in containerd)
#   status      what runs, and the node
#   kubeconfig  print the admin kubeconfig path
#   env         print shell exports for tests: KUBECONFIG, the MinIO endpoint and credentials
#   logs NAME   print the log of one component (etcd, kube-apiserver, kubelet, containerd, minio, ...)
set -euo pipefail
# shellcheck source=e2e/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Start order; `down` stops them in reverse.
COMPONENTS=(containerd etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy minio)
# Sysctls that kubelet, kube-proxy, the CNI bridge plugin or this script change; saved before the first change
# and restored by `down`.
SAVED_SYSCTLS=(net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.ipv4.conf.all.route_localnet
  vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
  kernel.keys.root_maxbytes)
# kubelet's cgroup root, made by this script in every cgroup v1 hierarchy and removed by `down`.
CGROUP_ROOT=quarry-cluster
# Keeps pod traffic on the bridge: pods reach each other, the node address and Services, never another network.
GUARD_CHAIN=QUARRY-CLUSTER

# ---- processes ---------------------------------------------------------------------------------------------
# A pid file holds "PID STARTTIME", so a recycled pid is never mistaken for a component.

start_time() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }

# alive PID : the process exists and is not a zombie waiting for its parent.
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [ -n "$state" ] && [ "$state" != Z ]
}

pid_of() {
  local file=$QC_RUN/$1.pid pid started
  [ -f "$file" ] || return 1
  read -r pid started <"$file"
  [ -n "$pid" ] && alive "$pid" && [ "$(start_time "$pid")" = "$started" ] || return 1
  echo "$pid"
}

is_running() { pid_of "$1" >/dev/null; }

# start NAME COMMAND... : runs COMMAND in a session of its own (so a Ctrl-C of the caller does not reach it)
# and without the lock (fd 8), which would otherwise be held as long as the component runs,
# logging to logs/NAME.log.
start() {
  local name=$1; shift
  is_running "$name" && return 0
  printf '\n---- %s started %s\n' "$name" "$(date -u +%FT%TZ)" >>"$QC_LOGS/$name.log"
  setsid "$@" >>"$QC_LOGS/$name.log" 2>&1 </dev/null 8>&- &
  local pid=$!
  echo "$pid $(start_time "$pid")" >"$QC_RUN/$name.pid"
}

stop() {
  local name=$1 pid i
  if pid=$(pid_of "$name"); then
    kill -TERM "$pid" 2>/dev/null || true   # it may have exited since pid_of looked
    for ((i = 0; i < 100; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      echo "   $name did not stop in 10 s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    echo "   stopped $name"
  fi
  rm -f "$QC_RUN/$name.pid"
}

fail() {
  local name=$1; shift
  echo "---- last lines of $QC_LOGS/$name.log:" >&2
  tail -n 40 "$QC_LOGS/$name.log" >&2 || true   # no log yet: the error below still says what failed
  qc_die "$* (full log: $QC_LOGS/$name.log; stop with: $0 down)"
}

# wait_for NAME SECONDS WHAT CHECK... : polls CHECK until it succeeds; fails early when NAME died.
wait_for() {
  local name=$1 seconds=$2 what=$3; shift 3
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    is_running "$name" || fail "$name" "$name exited while waiting for $what"
    ((SECONDS < deadline)) || fail "$name" "timed out after $seconds s waiting for $what"
    sleep 0.3
  done
}

kubectl_admin() { kubectl --kubeconfig "$QC_KUBECONFIG" "$@"; }
http_ok() { curl -fsS --max-time 3 "$@"; }

# ---- certificates and kubeconfigs --------------------------------------------------------------------------

# cert NAME CN ORG USAGE [SAN] : a key and a certificate signed by the cluster CA; USAGE is client, server or both.
cert() {
  local name=$1 cn=$2 org=$3 usage=$4 san=${5:-}
  [ -f "$QC_PKI/$name.crt" ] && return 0
  local subj="/CN=$cn" eku=clientAuth
  [ -n "$org" ] && subj="/O=$org$subj"
  case "$usage" in server) eku=serverAuth ;; both) eku=serverAuth,clientAuth ;; esac
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$eku"
    [ -z "$san" ] || echo "subjectAltName=$san"
  } >"$QC_PKI/$name.ext"
  openssl req -new -newkey rsa:2048 -nodes -keyout "$QC_PKI/$name.key" -subj "$subj" -out "$QC_PKI/$name.csr" 2>/dev/null
  openssl x509 -req -in "$QC_PKI/$name.csr" -CA "$QC_PKI/ca.crt" -CAkey "$QC_PKI/ca.key" -CAcreateserial \
    -days 3650 -extfile "$QC_PKI/$name.ext" -out "$QC_PKI/$name.crt" 2>/dev/null
  rm -f "$QC_PKI/$name.csr" "$QC_PKI/$name.ext"
}

kubeconfig() {
  local file=$1 name=$2
  [ -f "$file" ] && return 0
  local k=(kubectl --kubeconfig "$file.tmp" config)
  "${k[@]}" set-cluster quarry --server "https://$QC_NODE_IP:$QC_APISERVER_PORT" \
    --certificate-authority "$QC_PKI/ca.crt" --embed-certs >/dev/null
  "${k[@]}" set-credentials "$name" --client-certificate "$QC_PKI/$name.crt" --client-key "$QC_PKI/$name.key" \
    --embed-certs >/dev/null
  "${k[@]}" set-context quarry --cluster quarry --user "$name" >/dev/null
  "${k[@]}" use-context quarry >/dev/null
  mv "$file.tmp" "$file"
}

make_pki() {
  mkdir -p "$QC_PKI"
  chmod 700 "$QC_PKI"
  if [ ! -f "$QC_PKI/ca.crt" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$QC_PKI/ca.key" -out "$QC_PKI/ca.crt" -days 3650 \
      -subj "/CN=quarry-cluster-ca" 2>/dev/null
  fi
  local svc_names="DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert kube-apiserver kube-apiserver "" server \
    "$svc_names,DNS:localhost,IP:$QC_NODE_IP,IP:$QC_KUBERNETES_SERVICE_IP,IP:127.0.0.1"
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters client
  cert admin quarry-admin system:masters client
  cert kube-controller-manager system:kube-controller-manager "" client
  cert kube-scheduler system:kube-scheduler "" client
  cert kube-proxy system:kube-proxy "" client
  cert kubelet "system:node:$QC_NODE" system:nodes client
  cert kubelet-serving "$QC_NODE" "" server "DNS:$QC_NODE,IP:$QC_NODE_IP"
  if [ ! -f "$QC_PKI/sa.key" ]; then
    openssl genrsa -out "$QC_PKI/sa.key" 2048 2>/dev/null
    openssl rsa -in "$QC_PKI/sa.key" -pubout -out "$QC_PKI/sa.pub" 2>/dev/null
  fi
  kubeconfig "$QC_KUBECONFIG" admin
  local c
  for c in kube-controller-manager kube-scheduler kube-proxy kubelet; do
    kubeconfig "$QUARRY_CLUSTER_DIR/$c.kubeconfig" "$c"
  done
}

# ---- host setup and its undoing ------------------------------------------------------------------------------

save_host_state() {
  local file=$QC_RUN/host.env s
  [ -f "$file" ] && return 0   # an earlier `up` already saved the values from before any change
  {
    for s in "${SAVED_SYSCTLS[@]}"; do
      if [ -e "/proc/sys/${s//.//}" ]; then echo "sysctl $s=$(sysctl -n "$s")"; fi
    done
    echo "propagation $(findmnt -no PROPAGATION /)"
  } >"$file.tmp"
  mv "$file.tmp" "$file"
}

restore_host_state() {
  local file=$QC_RUN/host.env kind value
  [ -f "$file" ] || return 0
  while read -r kind value; do
    case "$kind" in
      sysctl) sysctl -qw "$value" || echo "   could not restore sysctl $value" >&2 ;;
      # `up` made / shared (below); undo that only if it was private before.
      propagation) [ "$value" != private ] || mount --make-rprivate / ;;
    esac
  done <"$file"
  rm -f "$file"
}

setup_host() {
  save_host_state
  # Mount propagation (HostToContainer, Bidirectional) needs the host paths on a shared mount, as on every
  # systemd machine; PID 1 here is not systemd and leaves / private.
  [ "$(findmnt -no PROPAGATION /)" = shared ] || mount --make-rshared /
  # The bridge exists before the API server starts because the API server listens on its gateway address;
  # the CNI bridge plugin then adopts it.
  ip link show "$QC_BRIDGE" >/dev/null 2>&1 || ip link add "$QC_BRIDGE" type bridge
  ip -4 addr show dev "$QC_BRIDGE" | grep "inet $QC_NODE_IP/" >/dev/null || ip addr add "$QC_NODE_IP/24" dev "$QC_BRIDGE"
  ip link set "$QC_BRIDGE" up
  sysctl -qw net.ipv4.ip_forward=1                 # Service traffic between pods is routed by the node
  sysctl -qw net.bridge.bridge-nf-call-iptables=1  # and must pass kube-proxy's rules even on the bridge
  if ! iptables -w -S "$GUARD_CHAIN" >/dev/null 2>&1; then
    iptables -w -N "$GUARD_CHAIN"
    iptables -w -A "$GUARD_CHAIN" -i "$QC_BRIDGE" ! -o "$QC_BRIDGE" -j DROP
    iptables -w -A "$GUARD_CHAIN" -o "$QC_BRIDGE" ! -i "$QC_BRIDGE" -j DROP
  fi
  iptables -w -C FORWARD -j "$GUARD_CHAIN" 2>/dev/null || iptables -w -I FORWARD 1 -j "$GUARD_CHAIN"
  local h
  for h in /sys/fs/cgroup/*/; do
    [ "$(stat -fc %T "$h")" = cgroupfs ] || continue   # cgroup v1 hierarchies only, not the unified one
    mkdir -p "$h$CGROUP_ROOT"
    if [ -f "$h/cpuset.cpus" ]; then  # a new cpuset accepts tasks only once it has cpus and mems
      [ -n "$(cat "$h$CGROUP_ROOT/cpuset.cpus")" ] || cat "$h/cpuset.cpus" >"$h$CGROUP_ROOT/cpuset.cpus"
      [ -n "$(cat "$h$CGROUP_ROOT/cpuset.mems")" ] || cat "$h/cpuset.mems" >"$h$CGROUP_ROOT/cpuset.mems"
    fi
  done
}

# remove_chains CMD TABLE REGEX : deletes the chains of TABLE whose names match REGEX, and every jump to them.
remove_chains() {
  local cmd=$1 table=$2 regex=$3 rule chain
  local dump
  dump=$("$cmd-save" -t "$table" 2>/dev/null) || return 0
  while read -r rule; do
    eval "$cmd -w -t $table -D ${rule#-A }" 2>/dev/null || true
  done < <(grep -E -- "^-A .* -j ($regex)( |\$)" <<<"$dump" | grep -Ev -- "^-A ($regex) ")
  for chain in $(sed -n 's/^:\([^ ]*\) .*/\1/p' <<<"$dump" | grep -E "^($regex)\$"); do
    "$cmd" -w -t "$table" -F "$chain" 2>/dev/null || true
  done
  for chain in $(sed -n 's/^:\([^ ]*\) .*/\1/p' <<<"$dump" | grep -E "^($regex)\$"); do
    "$cmd" -w -t "$table" -X "$chain" 2>/dev/null || true
  done
}

# The CNI portmap plugin's top-level chains (CNI-HOSTPORT-*) are shared with any other CNI user, such as
# podman; remove them only when no container of anyone still has a port mapping (a CNI-DN-* chain).
remove_portmap_chains() {
  local cmd=$1
  "$cmd-save" -t nat 2>/dev/null | grep '^:CNI-DN-' >/dev/null || remove_chains "$cmd" nat 'CNI-HOSTPORT-[A-Z]+'
}

teardown_host() {
  # kube-proxy removes its own rules; kubelet's canary and hint chains are removed by name (KUBE-*: no one
  # else on these machines runs kubelet or kube-proxy).
  kube-proxy --cleanup --v=0 >>"$QC_LOGS/kube-proxy.log" 2>&1 || true
  local cmd table
  for cmd in iptables ip6tables; do
    command -v "$cmd" >/dev/null || continue
    for table in filter nat mangle; do remove_chains "$cmd" "$table" 'KUBE-[A-Z0-9-]+'; done
    remove_portmap_chains "$cmd"
  done
  remove_chains iptables filter "$GUARD_CHAIN"
  if ip link show "$QC_BRIDGE" >/dev/null 2>&1; then ip link del "$QC_BRIDGE"; fi
  local h
  for h in /sys/fs/cgroup/*/; do
    [ -d "$h$CGROUP_ROOT" ] || continue
    find "$h$CGROUP_ROOT" -depth -type d -exec rmdir {} + 2>/dev/null \
      || echo "   could not remove cgroup $h$CGROUP_ROOT (processes still in it?)" >&2
  done
  restore_host_state
  # containerd's shims put their sockets under /run/containerd/s whatever the configured state directory; a shim
  # that was killed (not stopped) leaves its socket behind, which no one listens on any more.
  local socket
  for socket in /run/containerd/s/*; do
    [ -S "$socket" ] || continue
    ss -xlH | grep -F -- "$socket" >/dev/null || rm -f "$socket"
  done
  rmdir /run/containerd/s /run/containerd/fifo /run/containerd 2>/dev/null || true
}

# Unmounts whatever is still mounted under the cluster's state: pod volumes, network namespaces, container
# root filesystems. Deepest first.
unmount_state() {
  local target
  { findmnt -rn -o TARGET | grep -F "$QUARRY_CLUSTER_DIR/" || true; } | awk '{ print length, $0 }' | sort -rn \
    | cut -d' ' -f2- | while read -r target; do
      umount "$target" 2>/dev/null || umount -l "$target" || echo "   could not unmount $target" >&2
    done
}

# ---- configuration files -------------------------------------------------------------------------------------

write_containerd_config() {
  mkdir -p "$QUARRY_CLUSTER_DIR/containerd" "$QC_RUN/containerd" "$QUARRY_CLUSTER_DIR/cni/net.d"
  cat >"$QUARRY_CLUSTER_DIR/containerd.toml" <<EOF
# written by e2e/cluster/cluster.sh: own root, state, socket and runc root, apart from any system containerd
version = 2
root = "$QUARRY_CLUSTER_DIR/containerd"
state = "$QC_RUN/containerd"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]

[grpc]
  address = "$QC_CONTAINERD_SOCK"

[plugins."io.containerd.internal.v1.opt"]
  path = "$QUARRY_CLUSTER_DIR/containerd-opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$QC_PAUSE_IMAGE"
  stream_server_address = "127.0.0.1"
  stream_server_port = "$QC_CONTAINERD_STREAM_PORT"
  netns_mounts_under_state_dir = true
  # Lowering a process's oom_score_adj (kubelet asks -998 for sandboxes, -997 for Guaranteed pods) is refused
  # on these machines even to root; this caps the requests at containerd's own score instead.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$QUARRY_CLUSTER_DIR/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "$QC_RUN/runc"
        SystemdCgroup = false
EOF
  cat >"$QUARRY_CLUSTER_DIR/cni/net.d/10-quarry.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "quarry",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$QC_BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "$QC_POD_SUBNET", "gateway": "$QC_NODE_IP" }]],
        "routes": [{ "dst": "0.0.0.0/0" }],
        "dataDir": "$QC_RUN/cni-ipam"
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
EOF
}

write_kubelet_config() {
  mkdir -p "$QUARRY_CLUSTER_DIR/kubelet" "$QUARRY_CLUSTER_DIR/pod-logs"
  # The cluster runs no DNS server, and pod traffic never leaves the bridge: a name lookup in a pod fails at
  # once (nothing answers on the pod's own loopback) instead of waiting for the machine's resolver.
  printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$QUARRY_CLUSTER_DIR/resolv.conf"
  cat >"$QUARRY_CLUSTER_DIR/kubelet.yaml" <<EOF
# written by e2e/cluster/cluster.sh
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $QC_NODE_IP
port: $QC_KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $QC_KUBELET_HEALTHZ_PORT
tlsCertFile: $QC_PKI/kubelet-serving.crt
tlsPrivateKeyFile: $QC_PKI/kubelet-serving.key
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $QC_PKI/ca.crt }
authorization:
  mode: Webhook
containerRuntimeEndpoint: unix://$QC_CONTAINERD_SOCK
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP_ROOT
failSwapOn: false
podLogsDir: $QUARRY_CLUSTER_DIR/pod-logs
clusterDomain: cluster.local
resolvConf: $QUARRY_CLUSTER_DIR/resolv.conf
# The disk is shared with everything else on the machine: evict only when it is really full, and never
# garbage-collect images, which exist only here (there is no registry to pull them from again).
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%
  imagefs.available: 1%
  nodefs.inodesFree: 1%
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
EOF
}

# ---- components ----------------------------------------------------------------------------------------------

start_containerd() {
  write_containerd_config
  start containerd containerd --config "$QUARRY_CLUSTER_DIR/containerd.toml"
  wait_for containerd 30 "containerd's socket" qc_ctr version
  "$QUARRY_CLUSTER_REPO/e2e/cluster/images.sh" pause >/dev/null
}

start_etcd() {
  start etcd etcd --name quarry --data-dir "$QUARRY_CLUSTER_DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$QC_ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$QC_ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$QC_ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$QC_ETCD_PEER_PORT" \
    --initial-cluster "quarry=http://127.0.0.1:$QC_ETCD_PEER_PORT" \
    --quota-backend-bytes $((2 * 1024 * 1024 * 1024))
  wait_for etcd 30 "etcd's health" http_ok "http://127.0.0.1:$QC_ETCD_PORT/health"
}

start_apiserver() {
  start kube-apiserver kube-apiserver \
    --etcd-servers "http://127.0.0.1:$QC_ETCD_PORT" \
    --bind-address "$QC_NODE_IP" --advertise-address "$QC_NODE_IP" --secure-port "$QC_APISERVER_PORT" \
    --cert-dir "$QC_PKI" --tls-cert-file "$QC_PKI/kube-apiserver.crt" --tls-private-key-file "$QC_PKI/kube-apiserver.key" \
    --client-ca-file "$QC_PKI/ca.crt" \
    --kubelet-client-certificate "$QC_PKI/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$QC_PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$QC_PKI/ca.crt" \
    --service-cluster-ip-range "$QC_SERVICE_CIDR" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$QC_PKI/sa.pub" --service-account-signing-key-file "$QC_PKI/sa.key" \
    --kubelet-preferred-address-types InternalIP \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --allow-privileged=true
  wait_for kube-apiserver 90 "the API server to be ready" kubectl_admin get --raw /readyz
}

start_controllers() {
  local kcm=$QUARRY_CLUSTER_DIR/kube-controller-manager.kubeconfig
  start kube-controller-manager kube-controller-manager \
    --kubeconfig "$kcm" --authentication-kubeconfig "$kcm" --authorization-kubeconfig "$kcm" \
    --bind-address 127.0.0.1 --secure-port "$QC_CONTROLLER_MANAGER_PORT" --cert-dir "$QC_PKI/kube-controller-manager" \
    --leader-elect=false --use-service-account-credentials \
    --service-account-private-key-file "$QC_PKI/sa.key" --root-ca-file "$QC_PKI/ca.crt" \
    --cluster-signing-cert-file "$QC_PKI/ca.crt" --cluster-signing-key-file "$QC_PKI/ca.key" \
    --service-cluster-ip-range "$QC_SERVICE_CIDR" --enable-hostpath-provisioner
  local sched=$QUARRY_CLUSTER_DIR/kube-scheduler.kubeconfig
  start kube-scheduler kube-scheduler \
    --kubeconfig "$sched" --authentication-kubeconfig "$sched" --authorization-kubeconfig "$sched" \
    --bind-address 127.0.0.1 --secure-port "$QC_SCHEDULER_PORT" --leader-elect=false
  wait_for kube-controller-manager 60 "the controller manager's health" \
    http_ok -k "https://127.0.0.1:$QC_CONTROLLER_MANAGER_PORT/healthz"
  wait_for kube-scheduler 60 "the scheduler's health" http_ok -k "https://127.0.0.1:$QC_SCHEDULER_PORT/healthz"
  # A default StorageClass, like kind's "standard": the controller manager's hostPath provisioner makes each
  # volume a directory /tmp/hostpath_pv/<uuid> on the node (its fixed place) and removes it with the volume.
  kubectl_admin apply -f - >/dev/null <<EOF
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: { storageclass.kubernetes.io/is-default-class: "true" }
provisioner: kubernetes.io/host-path
reclaimPolicy: Delete
volumeBindingMode: Immediate
EOF
}

start_node() {
  write_kubelet_config
  start kubelet kubelet --config "$QUARRY_CLUSTER_DIR/kubelet.yaml" \
    --kubeconfig "$QUARRY_CLUSTER_DIR/kubelet.kubeconfig" --root-dir "$QUARRY_CLUSTER_DIR/kubelet" \
    --hostname-override "$QC_NODE" --node-ip "$QC_NODE_IP"
  # nodePortAddresses keeps NodePorts off the machine's own interface; the zeros leave conntrack sysctls alone.
  start kube-proxy kube-proxy --kubeconfig "$QUARRY_CLUSTER_DIR/kube-proxy.kubeconfig" \
    --hostname-override "$QC_NODE" --proxy-mode iptables --cluster-cidr "$QC_POD_SUBNET" \
    --nodeport-addresses "$QC_NODE_IP/32" \
    --healthz-bind-address "127.0.0.1:$QC_KUBE_PROXY_HEALTHZ_PORT" \
    --metrics-bind-address "127.0.0.1:$QC_KUBE_PROXY_METRICS_PORT" \
    --conntrack-max-per-core 0 --conntrack-min 0 \
    --conntrack-tcp-timeout-established 0 --conntrack-tcp-timeout-close-wait 0
  wait_for kubelet 60 "kubelet's health" http_ok "http://127.0.0.1:$QC_KUBELET_HEALTHZ_PORT/healthz"
  wait_for kubelet 120 "node $QC_NODE to be Ready" \
    kubectl_admin wait --for=condition=Ready "node/$QC_NODE" --timeout=2s
  wait_for kube-proxy 60 "kube-proxy's health" http_ok "http://127.0.0.1:$QC_KUBE_PROXY_HEALTHZ_PORT/healthz"
  # Pods are admitted only once their namespace has its default ServiceAccount.
  wait_for kube-controller-manager 60 "the default ServiceAccount" kubectl_admin get serviceaccount default
}

start_minio() {
  mkdir -p "$QUARRY_CLUSTER_DIR/minio"
  MINIO_ROOT_USER=$QC_MINIO_ACCESS_KEY MINIO_ROOT_PASSWORD=$QC_MINIO_SECRET_KEY MINIO_BROWSER=off \
    start minio minio server "$QUARRY_CLUSTER_DIR/minio" --quiet \
    --address "$QC_NODE_IP:$QC_MINIO_PORT" --console-address "127.0.0.1:$QC_MINIO_CONSOLE_PORT"
  wait_for minio 30 "MinIO's health" http_ok "$QC_MINIO_ENDPOINT/minio/health/live"
}

# ---- commands ------------------------------------------------------------------------------------------------

lock() {
  mkdir -p "$QUARRY_CLUSTER_DIR" "$QC_RUN" "$QC_LOGS"
  exec 8>"$QUARRY_CLUSTER_DIR/.lock"
  flock -w 600 8 || qc_die "another cluster.sh up or down has held $QUARRY_CLUSTER_DIR/.lock for 10 minutes"
}

cmd_up() {
  qc_require_root
  local begin=$SECONDS
  "$QUARRY_CLUSTER_REPO/e2e/tools/install-packages.sh" --cluster >/dev/null
  qc_tools
  lock
  make_pki
  setup_host
  start_containerd
  start_etcd
  start_apiserver
  start_controllers
  start_node
  start_minio
  echo "cluster up in $((SECONDS - begin)) s: node $QC_NODE Ready"
  echo "kubeconfig: $QC_KUBECONFIG   (export KUBECONFIG=$QC_KUBECONFIG)"
  echo "MinIO: $QC_MINIO_ENDPOINT (from pods and from this machine)"
}

# Deletes every pod and waits until kubelet has stopped their containers, torn down their networks and
# unmounted their volumes; the controllers stop first so nothing is recreated.
drain() {
  stop kube-controller-manager
  stop kube-scheduler
  is_running kube-apiserver && is_running kubelet && is_running containerd || return 0
  kubectl_admin delete pods --all --all-namespaces --grace-period=0 --force --wait=false >/dev/null 2>&1 || true
  local deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)); do
    [ -z "$(qc_ctr tasks ls -q 2>/dev/null)" ] \
      && ! findmnt -rn -o TARGET | grep -F "$QUARRY_CLUSTER_DIR/kubelet/pods/" >/dev/null && return 0
    sleep 1
  done
  echo "   pods still running after 60 s; killing their containers" >&2
}

# Kills containers kubelet did not stop, and containerd's shims (they outlive containerd by design).
kill_leftover_containers() {
  local task
  if is_running containerd; then
    for task in $(qc_ctr tasks ls -q 2>/dev/null); do
      qc_ctr tasks kill -s SIGKILL "$task" >/dev/null 2>&1 || true
    done
    sleep 1
    for task in $(qc_ctr tasks ls -q 2>/dev/null); do qc_ctr tasks delete -f "$task" >/dev/null 2>&1 || true; done
  fi
}

kill_shims() {
  local pid
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $QC_CONTAINERD_SOCK" || true); do
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# Kills whatever still runs in kubelet's cgroups: the containers of a cluster whose containerd died (a killed
# shim leaves its container running). Every pod process is in these cgroups, and nothing else is.
kill_pod_processes() {
  local pids
  pids=$({ find /sys/fs/cgroup/*/"$CGROUP_ROOT" -name cgroup.procs -exec cat {} + 2>/dev/null || true; } | sort -u)
  [ -n "$pids" ] || return 0
  echo "   killing $(wc -w <<<"$pids") leftover pod processes"
  # shellcheck disable=SC2086 # one pid per word
  kill -KILL $pids 2>/dev/null || true
  sleep 1
}

# Every step of `down` is best effort (what it removes may already be gone, or go with an earlier step), which is
# why its commands end in `|| true`; report_leftovers then checks the end state and fails if anything is left.
cmd_down() {
  qc_require_root
  [ -d "$QUARRY_CLUSTER_DIR" ] || { echo "cluster: nothing to stop ($QUARRY_CLUSTER_DIR does not exist)"; return 0; }
  qc_tools
  lock
  echo "stopping the cluster in $QUARRY_CLUSTER_DIR"
  drain
  stop minio
  stop kube-proxy
  stop kubelet
  kill_leftover_containers
  stop kube-apiserver
  stop etcd
  stop containerd
  kill_shims
  kill_pod_processes
  unmount_state
  rm -rf "$QC_RUN/cni-ipam"
  teardown_host
  report_leftovers
}

report_leftovers() {
  local left=0
  if pgrep -af -- "$QUARRY_CLUSTER_DIR" >/dev/null; then
    echo "still running:" >&2; pgrep -af -- "$QUARRY_CLUSTER_DIR" >&2; left=1
  fi
  if findmnt -rn -o TARGET | grep -F "$QUARRY_CLUSTER_DIR/" >/dev/null; then
    echo "still mounted:" >&2; findmnt -rn -o TARGET | grep -F "$QUARRY_CLUSTER_DIR/" >&2; left=1
  fi
  if ls -d /sys/fs/cgroup/*/"$CGROUP_ROOT" >/dev/null 2>&1; then
    echo "still there: kubelet's cgroups (pod processes?):" >&2; ls -d /sys/fs/cgroup/*/"$CGROUP_ROOT" >&2; left=1
  fi
  if ip link show "$QC_BRIDGE" >/dev/null 2>&1; then echo "still there: bridge $QC_BRIDGE" >&2; left=1; fi
  if iptables-save 2>/dev/null | grep -E "^:(KUBE-|$GUARD_CHAIN)" >/dev/null; then
    echo "still there: iptables chains" >&2; iptables-save 2>/dev/null | grep -E "^:(KUBE-|$GUARD_CHAIN)" >&2; left=1
  fi
  [ "$left" -eq 0 ] || qc_die "some parts of the cluster are left (see above)"
  echo "cluster down: nothing running, mounted or configured"
}

cmd_status() {
  local name pid rc=0
  for name in "${COMPONENTS[@]}"; do
    if pid=$(pid_of "$name"); then printf '%-24s running (pid %s)\n' "$name" "$pid"
    else printf '%-24s stopped\n' "$name"; rc=1; fi
  done
  if is_running kube-apiserver; then
    qc_tools
    kubectl_admin get nodes -o wide || rc=1
  fi
  echo "state: $QUARRY_CLUSTER_DIR   kubeconfig: $QC_KUBECONFIG   logs: $QC_LOGS"
  return "$rc"
}

cmd_env() {
  echo "export KUBECONFIG=$QC_KUBECONFIG"
  echo "export QUARRY_CLUSTER_NODE_IP=$QC_NODE_IP"
  echo "export QUARRY_E2E_S3_ENDPOINT=$QC_MINIO_ENDPOINT"
  echo "export QUARRY_E2E_S3_ACCESS_KEY=$QC_MINIO_ACCESS_KEY"
  echo "export QUARRY_E2E_S3_SECRET_KEY=$QC_MINIO_SECRET_KEY"
  echo "export QUARRY_E2E_BASE_IMAGE=$QC_BASE_IMAGE"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  purge) cmd_down; rm -rf "$QUARRY_CLUSTER_DIR" /tmp/hostpath_pv; echo "removed $QUARRY_CLUSTER_DIR and /tmp/hostpath_pv" ;;
  status) cmd_status ;;
  kubeconfig) echo "$QC_KUBECONFIG" ;;
  env) cmd_env ;;
  logs) [ -n "${2:-}" ] || qc_die "usage: $0 logs NAME (one of: ${COMPONENTS[*]})"; cat "$QC_LOGS/$2.log" ;;
  -h|--help|help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) qc_die "usage: $0 up|down|purge|status|kubeconfig|env|logs NAME (try --help)" ;;
esac
