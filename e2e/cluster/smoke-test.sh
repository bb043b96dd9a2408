#!/usr/bin/env bash
# smoke-test.sh - proves that a cluster runs real pods the way Quarry needs them: a Java runtime in the image,
# Jobs, the API server through the kubernetes Service with a ServiceAccount token, MinIO from pods, a volume of
# the default StorageClass, and mount propagation both ways (HostToContainer for NodeCache consumers,
# Bidirectional for the privileged agent).
#
# Runs against the cluster of KUBECONFIG; without KUBECONFIG, against e2e/cluster/cluster.sh's cluster.
#   SMOKE_IMAGE       image with java, sh and mount (default: the local base image on our cluster,
#                     eclipse-temurin:21-jre elsewhere)
#   SMOKE_S3_ENDPOINT MinIO/S3 endpoint that pods should reach (default: our cluster's MinIO; elsewhere the
#                     check is skipped when unset)
# The mount propagation checks mount on the node from this machine, so they run only on our own cluster,
# whose node is this machine. Ends with the line "smoke: N passed, N failed".
set -euo pipefail
# shellcheck source=e2e/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NS=quarry-smoke
own_cluster=0
if [ -z "${KUBECONFIG:-}" ] || [ "$KUBECONFIG" = "$QC_KUBECONFIG" ]; then
  export KUBECONFIG=$QC_KUBECONFIG
  own_cluster=1
fi
[ -f "${KUBECONFIG%%:*}" ] || qc_die "no kubeconfig at $KUBECONFIG: start the local cluster (e2e/cluster/cluster.sh up) or set KUBECONFIG"
qc_tools
if [ "$own_cluster" -eq 1 ]; then
  qc_require_root
  "$QUARRY_CLUSTER_REPO/e2e/cluster/images.sh" base
  SMOKE_IMAGE=${SMOKE_IMAGE:-$QC_BASE_IMAGE}
  SMOKE_S3_ENDPOINT=${SMOKE_S3_ENDPOINT:-$QC_MINIO_ENDPOINT}
else
  SMOKE_IMAGE=${SMOKE_IMAGE:-eclipse-temurin:21-jre}
  SMOKE_S3_ENDPOINT=${SMOKE_S3_ENDPOINT:-}
fi
echo "smoke: cluster $(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}'), image $SMOKE_IMAGE"

passed=0
failed=0
work=$(mktemp -d /var/tmp/quarry-smoke.XXXXXX)   # host side of the hostPath volumes; / is a shared mount

cleanup() {
  kubectl delete namespace "$NS" --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1 || true
  local target
  for target in "$work/to-container/mnt" "$work/from-container/mnt"; do
    ! mountpoint -q "$target" || umount "$target" || umount -l "$target"
  done
  rm -rf "$work"
}
trap cleanup EXIT

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() {
  echo "FAIL $1: $2"
  failed=$((failed + 1))
  kubectl -n "$NS" get pods -o wide 2>&1 | sed 's/^/    /'
  [ -z "${3:-}" ] || kubectl -n "$NS" describe pod "$3" 2>&1 | tail -n 15 | sed 's/^/    /'
  [ -z "${3:-}" ] || kubectl -n "$NS" logs "$3" 2>&1 | tail -n 15 | sed 's/^/    /'
}

# pod NAME [privileged] COMMAND... : a pod of SMOKE_IMAGE running COMMAND under sh, with the check program at
# /check and, when given through HOST_DIR and PROPAGATION, the host directory at /data.
pod() {
  local name=$1 privileged=false; shift
  if [ "$1" = privileged ]; then privileged=true; shift; fi
  local volume_mounts="[{name: check, mountPath: /check}" volumes="[{name: check, configMap: {name: cluster-check}}"
  if [ -n "${HOST_DIR:-}" ]; then
    volume_mounts+=", {name: data, mountPath: /data, mountPropagation: $PROPAGATION}"
    volumes+=", {name: data, hostPath: {path: $HOST_DIR, type: Directory}}"
  fi
  kubectl -n "$NS" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: { name: $name }
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: $SMOKE_IMAGE
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c", $(printf '%s' "$*" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')]
    securityContext: { privileged: $privileged }
    volumeMounts: $volume_mounts]
  volumes: $volumes]
EOF
}

# phase NAME SECONDS WANTED : waits until pod NAME's phase is WANTED (or a final phase).
phase() {
  local name=$1 seconds=$2 wanted=$3 now
  local deadline=$((SECONDS + seconds))
  while ((SECONDS < deadline)); do
    now=$(kubectl -n "$NS" get pod "$name" -o jsonpath='{.status.phase}' 2>/dev/null || true)
    [ "$now" = "$wanted" ] && return 0
    [ "$now" = Succeeded ] || [ "$now" = Failed ] && return 1
    sleep 1
  done
  return 1
}

kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
# Pods are admitted only once the namespace has its default ServiceAccount.
for _ in $(seq 1 60); do kubectl -n "$NS" get serviceaccount default >/dev/null 2>&1 && break; sleep 1; done
source "$QUARRY_CLUSTER_REPO/e2e/lib/java.sh"
mkdir -p "$work/classes"
javac --release 21 -d "$work/classes" "$QUARRY_CLUSTER_REPO/e2e/cluster/smoke/ClusterCheck.java"
kubectl -n "$NS" create configmap cluster-check --from-file="$work/classes/ClusterCheck.class" >/dev/null

check_java() {
  pod java 'java -version 2>&1'
  if phase java 180 Succeeded && kubectl -n "$NS" logs java | grep 'version' >/dev/null; then
    pass "a pod of $SMOKE_IMAGE runs java: $(kubectl -n "$NS" logs java | sed -n 1p)"
  else fail "java -version in a pod" "the pod did not succeed" java; fi
}

check_job() {
  kubectl -n "$NS" create job job --image "$SMOKE_IMAGE" -- sh -c 'echo job ran' >/dev/null
  if kubectl -n "$NS" wait --for=condition=Complete job/job --timeout=120s >/dev/null; then
    pass "a Job completes"
  else fail "a Job" "did not complete in 120 s" "$(kubectl -n "$NS" get pods -l job-name=job -o name | sed -n 1p | cut -d/ -f2)"; fi
}

check_api() {
  pod api 'java -cp /check ClusterCheck api'
  if phase api 120 Succeeded; then pass "$(kubectl -n "$NS" logs api)"
  else fail "the API server from a pod through the kubernetes Service" "the pod did not succeed" api; fi
}

check_s3() {
  if [ -z "$SMOKE_S3_ENDPOINT" ]; then
    echo "SKIP MinIO from a pod: set SMOKE_S3_ENDPOINT to an S3 endpoint pods can reach"
    return
  fi
  pod s3 "java -cp /check ClusterCheck http $SMOKE_S3_ENDPOINT/minio/health/live"
  if phase s3 120 Succeeded; then pass "MinIO from a pod: $(kubectl -n "$NS" logs s3)"
  else fail "MinIO from a pod at $SMOKE_S3_ENDPOINT" "the pod did not succeed" s3; fi
}

# A PersistentVolumeClaim of the default StorageClass binds, and a pod writes to it and reads back.
check_pvc() {
  kubectl -n "$NS" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 16Mi } }
EOF
  kubectl -n "$NS" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: { name: pvc }
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: $SMOKE_IMAGE
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c", "echo kept > /data/file && cat /data/file"]
    volumeMounts: [{ name: data, mountPath: /data }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
EOF
  if phase pvc 120 Succeeded && [ "$(kubectl -n "$NS" logs pvc)" = kept ]; then
    pass "a PersistentVolumeClaim of the default StorageClass binds and a pod writes to it"
  else fail "a PersistentVolumeClaim" "the pod did not write to it" pvc; fi
}

# A squashfs image loop-mounted on the host after the pod started shows up inside the pod (HostToContainer).
check_host_to_container() {
  mkdir -p "$work/to-container/mnt" "$work/image-content"
  echo "from the host" >"$work/image-content/hello.txt"
  mksquashfs "$work/image-content" "$work/hello.squashfs" -quiet -noappend >/dev/null
  HOST_DIR=$work/to-container PROPAGATION=HostToContainer pod to-container \
    'for i in $(seq 1 120); do [ -f /data/mnt/hello.txt ] && exec cat /data/mnt/hello.txt; sleep 0.5; done; exit 1'
  if ! phase to-container 120 Running; then
    fail "HostToContainer propagation" "the pod did not start" to-container
    return
  fi
  mount -t squashfs -o loop,ro "$work/hello.squashfs" "$work/to-container/mnt"
  if phase to-container 90 Succeeded && [ "$(kubectl -n "$NS" logs to-container)" = "from the host" ]; then
    pass "a squashfs mount made on the host after the pod started is seen in the pod (HostToContainer)"
  else fail "HostToContainer propagation" "the pod did not see the host's mount" to-container; fi
}

# A privileged pod mounts a tmpfs into its Bidirectional hostPath volume and the host sees it.
check_from_container() {
  mkdir -p "$work/from-container/mnt"
  HOST_DIR=$work/from-container PROPAGATION=Bidirectional pod from-container privileged \
    'mount -t tmpfs quarry-smoke /data/mnt && echo "from the pod" >/data/mnt/hello.txt && sleep 600'
  for _ in $(seq 1 120); do
    [ "$(cat "$work/from-container/mnt/hello.txt" 2>/dev/null)" = "from the pod" ] && break
    sleep 1
  done
  if findmnt -n "$work/from-container/mnt" | grep quarry-smoke >/dev/null \
    && [ "$(cat "$work/from-container/mnt/hello.txt" 2>/dev/null)" = "from the pod" ]; then
    pass "a mount made by a privileged pod is seen on the host (Bidirectional)"
  else fail "Bidirectional propagation" "the host did not see the pod's mount" from-container; fi
}

check_java
check_job
check_api
check_s3
check_pvc
if [ "$own_cluster" -eq 1 ]; then
  check_host_to_container
  check_from_container
else
  echo "SKIP mount propagation: it mounts on the node from this machine, which only works on e2e/cluster/cluster.sh's cluster"
fi
echo "smoke: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
