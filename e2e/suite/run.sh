#!/usr/bin/env bash
# run.sh - the end-to-end suite of Quarry: the chart installed with Helm, and each kind run for real, with real pods,
# on the cluster of KUBECONFIG. The same script runs on our local cluster (e2e/cluster/e2e.sh prepares it) and on
# kind (e2e/kind/run-e2e.sh). It needs the three images already on the cluster's nodes, and an S3 store that both
# the pods and this machine reach.
#
#   KUBECONFIG                  the cluster (required)
#   QUARRY_E2E_OPERATOR_IMAGE   operator, worker and agent images as repository:tag (required)
#   QUARRY_E2E_WORKER_IMAGE
#   QUARRY_E2E_AGENT_IMAGE
#   QUARRY_E2E_PULL_POLICY      of the three images (default IfNotPresent)
#   QUARRY_E2E_S3_ENDPOINT      S3 endpoint as pods reach it (required)
#   QUARRY_E2E_S3_HOST_ENDPOINT S3 endpoint as this machine reaches it (default: QUARRY_E2E_S3_ENDPOINT)
#   QUARRY_E2E_S3_ACCESS_KEY, QUARRY_E2E_S3_SECRET_KEY   its credentials (required)
#   QUARRY_E2E_BUCKET           bucket of the run, created if missing; the run empties it (default quarry-e2e)
#   QUARRY_E2E_PARTS            parts to run, of: sort sync cache (default: all three); install and uninstall always run
#   QUARRY_E2E_KEEP=1           leave the release and the test resources in place at the end (for debugging)
#
# Every name is fixed: the release quarry-e2e in namespace quarry-e2e-system, the resources in quarry-e2e, node
# folders /mnt/quarry-e2e and /var/lib/quarry-e2e. A run first removes what an earlier, failed run left.
# It ends with the line "e2e: N passed, N failed"; the exit status is 0 only when nothing failed.
set -uo pipefail
SUITE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SUITE_DIR/../.." && pwd)
# shellcheck source=e2e/suite/lib.sh
source "$SUITE_DIR/lib.sh"

: "${KUBECONFIG:?set KUBECONFIG to the cluster to test}"
: "${QUARRY_E2E_OPERATOR_IMAGE:?}" "${QUARRY_E2E_WORKER_IMAGE:?}" "${QUARRY_E2E_AGENT_IMAGE:?}"
: "${QUARRY_E2E_S3_ENDPOINT:?}" "${QUARRY_E2E_S3_ACCESS_KEY:?}" "${QUARRY_E2E_S3_SECRET_KEY:?}"
export KUBECONFIG
PULL_POLICY=${QUARRY_E2E_PULL_POLICY:-IfNotPresent}
S3_ENDPOINT=$QUARRY_E2E_S3_ENDPOINT
S3_HOST_ENDPOINT=${QUARRY_E2E_S3_HOST_ENDPOINT:-$S3_ENDPOINT}
S3_ACCESS_KEY=$QUARRY_E2E_S3_ACCESS_KEY
S3_SECRET_KEY=$QUARRY_E2E_S3_SECRET_KEY
BUCKET=${QUARRY_E2E_BUCKET:-quarry-e2e}
PARTS=${QUARRY_E2E_PARTS:-sort sync cache}
WORKER_IMAGE=$QUARRY_E2E_WORKER_IMAGE

RELEASE=quarry-e2e
RELEASE_NS=quarry-e2e-system
E2E_NS=quarry-e2e
NODE_NS=quarry-e2e-node
MOUNT_ROOT=/mnt/quarry-e2e
NODE_DIR=/var/lib/quarry-e2e
HELM=${HELM:-helm}
for tool in kubectl "$HELM" rclone sha256sum python3; do
  command -v "$tool" >/dev/null || { echo "e2e: $tool is required on PATH" >&2; exit 2; }
done
[ -x "$ROOT/quarry" ] || { echo "e2e: $ROOT/quarry is missing" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quarry-e2e.XXXXXX")
SUITE_RESULTS=$WORK/results
: >"$SUITE_RESULTS"
s3_setup
# The local runs of ./quarry use the same store as the pods, from this machine.
export QUARRY_S3_ENDPOINT=$S3_HOST_ENDPOINT QUARRY_S3_PATH_STYLE=true AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=$S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$S3_SECRET_KEY
suite_start=$SECONDS

# A JSON string of a text, for manifests written here.
json() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }

# helper_pod NS NAME PRIVILEGED VOLUMES-YAML MOUNTS-YAML SCRIPT: a pod of the worker image running SCRIPT under sh,
# as root (the worker image's user is 1000). VOLUMES-YAML and MOUNTS-YAML are flow-style YAML lists. With
# HELPER_NODE set, the pod runs on that node.
helper_pod() {
  local ns=$1 name=$2 privileged=$3 volumes=$4 mounts=$5 script=$6 placement=""
  [ -z "${HELPER_NODE:-}" ] || placement="nodeName: $HELPER_NODE"
  kubectl -n "$ns" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $name, labels: {app.kubernetes.io/part-of: quarry-e2e}}
spec:
  $placement
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
    - name: main
      image: $WORKER_IMAGE
      imagePullPolicy: $PULL_POLICY
      command: [sh, -c, $(json "$script")]
      securityContext: {runAsUser: 0, runAsGroup: 0, privileged: $privileged}
      volumeMounts: $mounts
  volumes: $volumes
EOF
}

# pod_done NS NAME TIMEOUT: waits until the pod succeeded; 1 when it failed or timed out.
pod_done() {
  wait_value "$3" Succeeded -n "$1" get pod "$2" -o 'jsonpath={.status.phase}' \
    || { kubectl -n "$1" logs "$2" --tail=20 2>&1 | sed 's/^/   log: /' >&2; return 1; }
}

# ---- the node: a privileged pod with the node's folders of the test at the same paths, the mount root shared
# both ways (Bidirectional): it sees the agent's mounts there, and can unmount what a failed run left. No
# nsenter into PID 1: some machines (ours) refuse to open /proc/1/ns/mnt even to root.
NODE_POD=node-shell
node_pod_start() {
  kubectl create namespace "$NODE_NS" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  kubectl -n "$NODE_NS" get pod "$NODE_POD" >/dev/null 2>&1 && return 0
  wait_value 60 default -n "$NODE_NS" get serviceaccount default -o 'jsonpath={.metadata.name}' || return 1
  helper_pod "$NODE_NS" "$NODE_POD" true \
    "[{name: node, hostPath: {path: $NODE_DIR, type: DirectoryOrCreate}}, {name: mounts, hostPath: {path: $MOUNT_ROOT, type: DirectoryOrCreate}}]" \
    "[{name: node, mountPath: $NODE_DIR}, {name: mounts, mountPath: $MOUNT_ROOT, mountPropagation: Bidirectional}]" \
    'exec sleep 100000'
  kubectl -n "$NODE_NS" wait --for=condition=Ready "pod/$NODE_POD" --timeout=180s >/dev/null
}
on_node() { kubectl -n "$NODE_NS" exec -i "$NODE_POD" -- sh -c "$1"; }
# What is mounted at or under the mount root on the node: "TARGET SOURCE" lines.
node_mounts() { on_node "findmnt -rn -o TARGET,SOURCE | awk 'index(\$1, \"$MOUNT_ROOT/\") == 1'"; }

# ---- install ------------------------------------------------------------------------------------------------
part_install() {
  set -e
  local t=$SECONDS repo tag args=()
  say "install: CRDs, then helm upgrade --install $RELEASE (namespace $RELEASE_NS)"
  kubectl apply --server-side --force-conflicts -f "$ROOT/charts/quarry/crds/" >/dev/null \
    || fail "CRDs" "kubectl apply of charts/quarry/crds failed"
  for component in operator:$QUARRY_E2E_OPERATOR_IMAGE worker:$QUARRY_E2E_WORKER_IMAGE agent:$QUARRY_E2E_AGENT_IMAGE; do
    local name=${component%%:*} ref=${component#*:}
    repo=${ref%:*} tag=${ref##*:}
    args+=(--set "$name.image.registry=" --set "$name.image.repository=$repo" --set "$name.image.tag=$tag"
           --set "$name.image.pullPolicy=$PULL_POLICY")
  done
  "$HELM" upgrade --install "$RELEASE" "$ROOT/charts/quarry" --namespace "$RELEASE_NS" --create-namespace \
    "${args[@]}" --set operator.finishedJobTtlSeconds=900 \
    --set "nodeCache.mountRoots={$MOUNT_ROOT}" --set "nodeCache.cacheRoots={$NODE_DIR/cache}" \
    --set "nodeCache.sourceRoots={$NODE_DIR/images}" --wait --timeout 4m >/dev/null \
    || fail "helm install" "helm upgrade --install did not finish"
  kubectl -n "$RELEASE_NS" rollout status "deploy/$RELEASE-operator" --timeout 3m >/dev/null \
    || fail "helm install" "the operator did not become ready"
  pass "helm install: the operator is ready" "$t"

  # What a failed earlier run left: resources (their finalizers need the operator), node folders, bucket.
  t=$SECONDS
  kubectl delete nc e2e-cache --ignore-not-found --timeout=3m >/dev/null
  kubectl delete namespace "$E2E_NS" --ignore-not-found --timeout=3m >/dev/null
  node_pod_start || fail "node shell" "the privileged pod in $NODE_NS did not start"
  if [ -n "$(node_mounts)" ]; then
    note "unmounting what an earlier run left under $MOUNT_ROOT"
    on_node "for m in \$(findmnt -rn -o TARGET | grep '^$MOUNT_ROOT/' | sort -r); do umount -l \"\$m\"; done"
  fi
  on_node "rm -rf $NODE_DIR/images $NODE_DIR/cache"
  s3 mkdir "e2e:$BUCKET" || fail "bucket" "cannot create bucket $BUCKET at $S3_HOST_ENDPOINT"
  s3 purge "e2e:$BUCKET" 2>/dev/null || true
  s3 mkdir "e2e:$BUCKET"
  kubectl create namespace "$E2E_NS" >/dev/null
  wait_value 60 default -n "$E2E_NS" get serviceaccount default -o 'jsonpath={.metadata.name}'
  kubectl -n "$E2E_NS" create secret generic s3-credentials \
    --from-literal=AWS_ACCESS_KEY_ID="$S3_ACCESS_KEY" --from-literal=AWS_SECRET_ACCESS_KEY="$S3_SECRET_KEY" >/dev/null
  pass "clean start: namespace $E2E_NS, bucket $BUCKET, node folders" "$t"
}

# ---- ShardSortJob ---------------------------------------------------------------------------------------------
SSJ_COLUMNS="NAME PHASE PROGRESS RECORDS SHARDS READY REASON AGE"

# sort_spec OUTPUT-PREFIX [LIMITS]: the spec (JSON) of the jobs, which differ only in where they write and in their
# workers' resource limits (LIMITS, a JSON object; default a memory limit), which the output does not depend on.
sort_spec() {
  local limits=${2:-'{"memory": "512Mi"}'}
  cat <<EOF
{"store": {"endpoint": "$S3_ENDPOINT", "pathStyle": true, "credentialsSecret": {"name": "s3-credentials"}},
 "input": {"prefix": "s3://$BUCKET/sort/in/"},
 "output": {"template": "s3://$BUCKET/$1/train-{000000..}.tar", "recordsPerShard": 300},
 "order": {"kind": "shuffle", "seed": 7},
 "workers": {"extract": {"parallelism": 3}, "create": {"parallelism": 2}, "memoryBudget": "64Mi",
             "resources": {"requests": {"cpu": "50m", "memory": "192Mi"}, "limits": $limits}}}
EOF
}

apply_ssj() { # NAME OUTPUT-PREFIX [LIMITS]
  printf 'apiVersion: quarry.dev/v1alpha1\nkind: ShardSortJob\nmetadata: {name: %s}\nspec: %s\n' \
    "$1" "$(sort_spec "$2" "${3:-}" | tr -d '\n')" | kubectl -n "$E2E_NS" apply -f - >/dev/null
}

# watch_ssj NAME TIMEOUT: waits until the job ends, printing `kubectl get ssj` at each phase change and checking
# its columns; fails unless it Succeeded. Sets PHASES to the phases seen.
watch_ssj() {
  local name=$1 deadline=$((SECONDS + $2)) phase="" last=""
  PHASES=""
  while ((SECONDS < deadline)); do
    phase=$(kubectl -n "$E2E_NS" get ssj "$name" -o 'jsonpath={.status.phase}' 2>/dev/null || true)
    if [ -n "$phase" ] && [ "$phase" != "$last" ]; then
      PHASES+="${PHASES:+ }$phase"
      columns "kubectl get ssj" "$SSJ_COLUMNS" -n "$E2E_NS" ssj "$name" || fail "ssj columns ($phase)" "see above"
      last=$phase
    fi
    case $phase in
      Succeeded) return 0 ;;
      Failed | Aborted) fail "ShardSortJob $name" "ended $phase: $(kubectl -n "$E2E_NS" get ssj "$name" \
          -o 'jsonpath={.status.conditions[?(@.type=="Ready")].message}')" ;;
    esac
    sleep 1
  done
  fail "ShardSortJob $name" "not finished after $2 s (phases seen: $PHASES)"
}

# check_sort_output NAME PREFIX: the job's status and columns at the end, its shards equal the local run's, and
# its scratch data is gone.
check_sort_output() {
  local name=$1 prefix=$2 t=$SECONDS records shards
  columns "kubectl get ssj" "$SSJ_COLUMNS" -n "$E2E_NS" ssj "$name" || fail "ssj columns" "see above"
  records=$(wc -l <"$WORK/sort-expected.sha256")
  [[ $ROW =~ ^$name\ Succeeded\ 100%\ 1600\ 6/6\  ]] \
    || fail "ssj $name columns" "row [$ROW], expected $name Succeeded 100% 1600 6/6 <age>"
  sha256_s3 "$BUCKET/$prefix/" >"$WORK/$name.sha256" || fail "ssj $name output" "cannot read s3://$BUCKET/$prefix/"
  if ! diff -u "$WORK/sort-expected.sha256" "$WORK/$name.sha256" >"$WORK/$name.diff"; then
    cat "$WORK/$name.diff" >&2
    fail "ssj $name output" "the shards differ from quarry sort run's (diff above: local first)"
  fi
  pass "ssj $name: $records shards byte-identical to quarry sort run (SHA-256)" "$t"
  t=$SECONDS
  wait_value 180 True -n "$E2E_NS" get ssj "$name" -o 'jsonpath={.status.conditions[?(@.type=="ScratchRemoved")].status}' \
    || fail "ssj $name scratch" "condition ScratchRemoved is not True"
  [ -z "$(s3 lsf -R "e2e:$BUCKET/.quarry-scratch/$E2E_NS/$name/" 2>/dev/null)" ] \
    || fail "ssj $name scratch" "objects left under s3://$BUCKET/.quarry-scratch/$E2E_NS/$name/"
  shards=$(s3 lsf "e2e:$BUCKET/$prefix/" | tr '\n' ' ')
  [[ $shards == *train.manifest.json* ]] || fail "ssj $name manifest" "no manifest in s3://$BUCKET/$prefix/: $shards"
  pass "ssj $name: manifest committed, scratch removed (ScratchRemoved=True, no objects)" "$t"
}

# kill_running_worker JOB STEP: deletes a running pod of the step's Job as soon as there is one and waits until its
# container ended; prints "<pod>|<index>|<exit code>" (the code is "?" when the pod went away before its status said;
# the Job's count of failed pods, checked after, still tells).
kill_running_worker() {
  local job=$1-$2 victim="" deadline=$((SECONDS + 300))
  while [ -z "$victim" ] && ((SECONDS < deadline)); do
    victim=$(kubectl -n "$E2E_NS" get pods -l "job-name=$job" --field-selector=status.phase=Running \
      -o 'jsonpath={.items[0].metadata.name}' 2>/dev/null || true)
    [ -n "$victim" ] || sleep 0.3
  done
  [ -n "$victim" ] || fail "kill a worker" "no $2 pod of $1 ran within 300 s"
  local index code=""
  index=$(kubectl -n "$E2E_NS" get pod "$victim" \
    -o 'jsonpath={.metadata.annotations.batch\.kubernetes\.io/job-completion-index}' 2>/dev/null || true)
  kubectl -n "$E2E_NS" delete pod "$victim" --wait=false >/dev/null
  deadline=$((SECONDS + 120))
  while [ -z "$code" ] && ((SECONDS < deadline)); do
    code=$(kubectl -n "$E2E_NS" get pod "$victim" \
      -o 'jsonpath={.status.containerStatuses[0].state.terminated.exitCode}' 2>/dev/null) || code="?"
    [ -n "$code" ] || sleep 0.3
  done
  echo "$victim|$index|${code:-?}"
}

part_sort() {
  set -e
  local t=$SECONDS
  say "ShardSortJob: shuffle of a generated dataset, in pods and with quarry sort run"
  "$ROOT/quarry" gen --out "$WORK/sort-in" --shards 8 --records 200 --image-size 4Ki --seed 5 >/dev/null 2>&1 \
    || fail "quarry gen" "cannot generate the dataset"
  s3 copy "$WORK/sort-in" "e2e:$BUCKET/sort/in/" || fail "upload" "rclone copy to s3://$BUCKET/sort/in/ failed"
  sort_spec local >"$WORK/sort-spec.json"
  "$ROOT/quarry" sort run --spec "$WORK/sort-spec.json" --output "$WORK/sort-local/train-{000000..}.tar" \
    >"$WORK/sort-local.log" 2>&1 || { cat "$WORK/sort-local.log" >&2; false; } \
    || fail "quarry sort run" "the local run of the same spec failed"
  sha256_dir "$WORK/sort-local" >"$WORK/sort-expected.sha256"
  [ "$(wc -l <"$WORK/sort-expected.sha256")" -eq 6 ] || fail "quarry sort run" "expected 6 shards of 300 records"
  pass "dataset of 8 shards (1600 records) uploaded; local quarry sort run: 6 shards" "$t"

  t=$SECONDS
  apply_ssj e2e-shuffle sort/out
  watch_ssj e2e-shuffle 600
  local step
  # Two create workers: extract splits the records into two partitions, and a partition Job orders each.
  for step in extract partition create; do
    [ "$(kubectl -n "$E2E_NS" get job "e2e-shuffle-$step" -o 'jsonpath={.status.succeeded}')" -ge 1 ] \
      || fail "ssj e2e-shuffle" "Job e2e-shuffle-$step has no succeeded pod"
  done
  # The last partition step to finish plans, and the last create worker commits, in their own pods.
  for step in plan commit; do
    ! kubectl -n "$E2E_NS" get job "e2e-shuffle-$step" >/dev/null 2>&1 \
      || fail "ssj e2e-shuffle" "Job e2e-shuffle-$step exists: the last $step worker should have run it"
  done
  local planned
  planned=$(kubectl -n "$E2E_NS" get ssj e2e-shuffle -o 'jsonpath={.status.phases.plan.records}')
  [ "$planned" = 1600 ] || fail "ssj e2e-shuffle" "status.phases.plan.records is '$planned', not 1600"
  note "phases seen: $PHASES; pods: $(kubectl -n "$E2E_NS" get pods -l quarry.dev/shardsortjob=e2e-shuffle \
    --no-headers 2>/dev/null | wc -l)"
  pass "ssj e2e-shuffle Succeeded: extract, partition and create ran as pods; the last partition step planned, the last create worker committed" "$t"
  check_sort_output e2e-shuffle sort/out

  # The same job again, with an extract worker and then a create worker killed while they run. Their CPU limit
  # stretches each worker's few seconds of work well past the time a deletion takes to reach it: unslowed, a worker
  # sometimes finished first, and the kill tested nothing.
  t=$SECONDS
  apply_ssj e2e-shuffle-kill sort/out-kill '{"cpu": "200m", "memory": "512Mi"}'
  local step victim pod index code failed killed=""
  for step in extract create; do
    victim=$(kill_running_worker e2e-shuffle-kill "$step") || exit 1
    IFS='|' read -r pod index code <<<"$victim"
    note "deleted running $step pod $pod (index $index): exit code $code"
    [ "$code" != 0 ] || fail "kill a worker" "$step pod $pod finished its work (exit 0) before its deletion reached it"
    killed+="${killed:+, }$step index $index (exit $code)"
  done
  watch_ssj e2e-shuffle-kill 600
  for step in extract create; do
    failed=$(kubectl -n "$E2E_NS" get job "e2e-shuffle-kill-$step" -o 'jsonpath={.status.failed}')
    [ "${failed:-0}" -ge 1 ] || fail "kill a worker" "Job e2e-shuffle-kill-$step counts no failed pod"
  done
  pass "ssj e2e-shuffle-kill Succeeded with $killed killed, each counted failed by its Job" "$t"
  check_sort_output e2e-shuffle-kill sort/out-kill
}

# ---- DatasetSync ----------------------------------------------------------------------------------------------
DSS_COLUMNS="NAME OPERATION PHASE FILES BYTES READY REASON AGE"
DSS_WIDE_COLUMNS="NAME OPERATION PHASE FILES BYTES VERSION READY REASON MESSAGE AGE"

# The files of the set, as "<sha256>  ./<path>" lines sorted by path (printed by a pod between markers).
# .quarry/ is sync's own state database in the folder, not data.
LIST_SCRIPT='cd /data/set && echo ==sums && find . -path ./.quarry -prune -o -type f -print0 | sort -z | xargs -0 sha256sum && echo ==end'
sums_of() { kubectl -n "$E2E_NS" logs "$1" | sed -n '/^==sums$/,/^==end$/p' | sed '1d;$d'; }

# wait_dss NAME: waits until the DatasetSync Succeeded.
wait_dss() {
  local deadline=$((SECONDS + 300)) phase=""
  while ((SECONDS < deadline)); do
    phase=$(kubectl -n "$E2E_NS" get dss "$1" -o 'jsonpath={.status.phase}' 2>/dev/null || true)
    [ "$phase" = Succeeded ] && return 0
    [ "$phase" = Failed ] && fail "dss $1" "Failed: $(kubectl -n "$E2E_NS" get dss "$1" \
      -o 'jsonpath={.status.conditions[?(@.type=="Ready")].message}')"
    sleep 1
  done
  fail "dss $1" "not Succeeded after 300 s (phase: $phase)"
}

# check_dss_status NAME FILES BYTES: the status is filled from the run, and kubectl get shows it.
check_dss_status() {
  local name=$1 files=$2 bytes=$3 status
  status=$(kubectl -n "$E2E_NS" get dss "$name" -o jsonpath='{.status}')
  note "status: $status"
  python3 - "$status" "$files" "$bytes" <<'EOF' || fail "dss $name status" "see above"
import json, sys
status, files, size = json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
problems = []
if not str(status.get("version", "")).startswith("sha256:"): problems.append("version is not a sha256: digest")
if status.get("files") != files: problems.append(f"files is {status.get('files')}, expected {files}")
if status.get("bytes") != size: problems.append(f"bytes is {status.get('bytes')}, expected {size}")
requests = status.get("requests") or {}
if not requests or sum(v for v in requests.values() if isinstance(v, int)) <= 0: problems.append("no requests counted")
if problems:
    print("   " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
EOF
  columns "kubectl get dss" "$DSS_COLUMNS" -n "$E2E_NS" dss "$name" || fail "dss columns" "see above"
  [[ $ROW =~ ^$name\ [A-Za-z]+\ Succeeded\ $files\ [0-9.]+[A-Za-z]*\  ]] \
    || fail "dss $name columns" "row [$ROW], expected $name <operation> Succeeded $files <bytes> <age>"
  columns "kubectl get dss -o wide" "$DSS_WIDE_COLUMNS" -n "$E2E_NS" dss "$name" -o wide \
    || fail "dss wide columns" "see above"
  [[ $ROW == *" sha256:"* ]] || fail "dss $name wide columns" "no version in [$ROW]"
}

part_sync() {
  set -e
  local t=$SECONDS
  say "DatasetSync: push a volume's folder to s3://$BUCKET/sync/cas, pull it into another volume"
  local claim
  for claim in e2e-sync-source e2e-sync-target; do
    kubectl -n "$E2E_NS" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: $claim}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 64Mi}}
EOF
  done
  # Files of several sizes in nested folders. Workers run as uid 1000, and hostPath volumes (our cluster's
  # provisioner) ignore fsGroup: the volumes are opened to them here, as an administrator would.
  # shellcheck disable=SC2016  # the script runs in the pod
  helper_pod "$E2E_NS" sync-writer false \
    "[{name: source, persistentVolumeClaim: {claimName: e2e-sync-source}}, {name: target, persistentVolumeClaim: {claimName: e2e-sync-target}}]" \
    "[{name: source, mountPath: /data}, {name: target, mountPath: /target}]" \
    'set -e; mkdir -p /data/set/images/a /data/set/images/b /data/set/labels
     for i in 1 2 3 4 5 6; do head -c $((i * 70000)) /dev/urandom > /data/set/images/a/img-$i.bin; done
     for i in 1 2 3; do head -c $((i * 1000 + 7)) /dev/urandom > /data/set/images/b/img-$i.bin; done
     for i in 1 2 3 4; do echo "label $i" > /data/set/labels/$i.txt; done
     : > /data/set/empty.txt
     chmod -R a+rwX /data /target
     echo bytes $(find /data/set -type f -exec cat {} + | wc -c)
     '"$LIST_SCRIPT"
  pod_done "$E2E_NS" sync-writer 180 || fail "volume writer" "the pod that fills e2e-sync-source did not succeed"
  sums_of sync-writer >"$WORK/sync-source.sha256"
  local files bytes
  files=$(wc -l <"$WORK/sync-source.sha256")
  bytes=$(kubectl -n "$E2E_NS" logs sync-writer | awk '/^bytes / { print $2 }')
  [ "$files" -eq 14 ] || fail "volume writer" "listed $files files, expected 14"
  pass "two PVCs bound; a pod wrote $files files ($bytes bytes)" "$t"

  t=$SECONDS
  kubectl -n "$E2E_NS" apply -f - >/dev/null <<EOF
apiVersion: quarry.dev/v1alpha1
kind: DatasetSync
metadata: {name: e2e-push}
spec:
  volume: {claimName: e2e-sync-source, path: set}
  remote: s3://$BUCKET/sync/cas
  store: {endpoint: "$S3_ENDPOINT", pathStyle: true, credentialsSecret: {name: s3-credentials}}
  operation: Push
EOF
  wait_dss e2e-push
  check_dss_status e2e-push "$files" "$bytes"
  local version
  version=$(kubectl -n "$E2E_NS" get dss e2e-push -o 'jsonpath={.status.version}')
  [ -n "$(s3 lsf "e2e:$BUCKET/sync/cas/refs/")" ] || fail "dss e2e-push" "no ref under s3://$BUCKET/sync/cas/refs/"
  pass "dss e2e-push Succeeded: version ${version:0:19}..., files, bytes, requests in status" "$t"

  t=$SECONDS
  kubectl -n "$E2E_NS" apply -f - >/dev/null <<EOF
apiVersion: quarry.dev/v1alpha1
kind: DatasetSync
metadata: {name: e2e-pull}
spec:
  volume: {claimName: e2e-sync-target, path: set}
  remote: s3://$BUCKET/sync/cas
  store: {endpoint: "$S3_ENDPOINT", pathStyle: true, credentialsSecret: {name: s3-credentials}}
  operation: Pull
  pull: {version: latest}
EOF
  wait_dss e2e-pull
  check_dss_status e2e-pull "$files" "$bytes"
  [ "$(kubectl -n "$E2E_NS" get dss e2e-pull -o 'jsonpath={.status.version}')" = "$version" ] \
    || fail "dss e2e-pull" "pulled version differs from the pushed $version"
  helper_pod "$E2E_NS" sync-reader false "[{name: target, persistentVolumeClaim: {claimName: e2e-sync-target}}]" \
    "[{name: target, mountPath: /data}]" "set -e; $LIST_SCRIPT"
  pod_done "$E2E_NS" sync-reader 180 || fail "volume reader" "the pod that lists e2e-sync-target did not succeed"
  sums_of sync-reader >"$WORK/sync-target.sha256"
  if ! diff -u "$WORK/sync-source.sha256" "$WORK/sync-target.sha256" >&2; then
    fail "dss e2e-pull" "the pulled files differ from the originals (diff above)"
  fi
  pass "dss e2e-pull Succeeded: $files pulled files equal the originals (SHA-256)" "$t"
}

# ---- NodeCache ------------------------------------------------------------------------------------------------
NC_COLUMNS="NAME PHASE NODES COPIES HIT READY REASON AGE"
NCR_COLUMNS="NAME NODE PHASE MOUNTED CACHED USED HIT READY REASON AGE"

image_state() { kubectl get ncr "e2e-cache.$NODE" -o 'jsonpath={.status.images[?(@.name=="e2e")].state}' 2>/dev/null; }

part_cache() {
  set -e
  local t=$SECONDS
  say "NodeCache: an image mounted by the agent, read by a pod, copied and switched while it reads"
  # The node of the node shell (the scheduler's pick: kind's control plane, for one, takes no pods) is the node of
  # the test: the NodeCache selects it alone, and the consumer runs there.
  node_pod_start || fail "node shell" "the privileged pod in $NODE_NS did not start"
  NODE=$(kubectl -n "$NODE_NS" get pod "$NODE_POD" -o 'jsonpath={.spec.nodeName}')
  "$ROOT/quarry" gen --out "$WORK/cache-ds" --shards 4 --records 100 --image-size 8Ki --seed 9 >/dev/null 2>&1 \
    || fail "quarry gen" "cannot generate the dataset"
  "$ROOT/quarry" cache build "$WORK/cache-ds" "$WORK/e2e.sqfs" >/dev/null || fail "quarry cache build" "see above"
  (cd "$WORK/cache-ds" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$WORK/cache.sha256"
  on_node "mkdir -p $NODE_DIR/images && cat > $NODE_DIR/images/.e2e.sqfs && mv $NODE_DIR/images/.e2e.sqfs $NODE_DIR/images/e2e.sqfs" \
    <"$WORK/e2e.sqfs" || fail "image on the node" "cannot write $NODE_DIR/images/e2e.sqfs through kubectl exec"
  kubectl -n "$E2E_NS" create configmap cache-expected --from-file=sums="$WORK/cache.sha256" >/dev/null
  pass "squashfs image of $(wc -l <"$WORK/cache.sha256") files ($(stat -c %s "$WORK/e2e.sqfs") bytes) put on node $NODE" "$t"

  t=$SECONDS
  kubectl apply -f - >/dev/null <<EOF
apiVersion: quarry.dev/v1alpha1
kind: NodeCache
metadata: {name: e2e-cache}
spec:
  nodeSelector: {kubernetes.io/hostname: "$NODE"}
  mountRoot: $MOUNT_ROOT
  cache: {directory: $NODE_DIR/cache, capacity: 256Mi}
  images:
    - {name: e2e, source: $NODE_DIR/images/e2e.sqfs}
  policy: {interval: 2s, window: 1m}
EOF
  wait_value 240 'Source|Copying|Cached' get ncr "e2e-cache.$NODE" -o 'jsonpath={.status.images[?(@.name=="e2e")].state}' \
    || fail "nc e2e-cache" "the agent did not mount image e2e"
  # The operator writes a NodeCache's status at most once every 10 s, however many nodes report.
  wait_value 30 1 get nc e2e-cache -o 'jsonpath={.status.nodesSelected}' \
    || fail "nc e2e-cache" "the status does not count the selected node within 30 s of its report"
  columns "kubectl get nc" "$NC_COLUMNS" nc e2e-cache || fail "nc columns" "see above"
  [[ $ROW =~ ^e2e-cache\ (Pending|Ready)\ [01]/1\  ]] || fail "nc e2e-cache columns" "row [$ROW], expected e2e-cache Ready 1/1 ..."
  pass "agent pod on $NODE mounted image e2e at $MOUNT_ROOT/e2e (state $(image_state))" "$t"

  # The consumer: reads every file of the image again and again, and checks each byte against the sums.
  t=$SECONDS
  # shellcheck disable=SC2016  # the script runs in the pod
  HELPER_NODE=$NODE helper_pod "$E2E_NS" cache-reader false \
    "[{name: cache, hostPath: {path: $MOUNT_ROOT, type: Directory}}, {name: expected, configMap: {name: cache-expected}}]" \
    "[{name: cache, mountPath: /cache, mountPropagation: HostToContainer}, {name: expected, mountPath: /expected}]" \
    'round=0; while true; do
       round=$((round + 1))
       if (cd /cache/e2e && sha256sum --quiet -c /expected/sums) >/tmp/out 2>&1; then echo "round $round ok"
       else echo "round $round READ-ERROR"; sed "s/^/  /" /tmp/out; fi
       sleep 0.5
     done'
  kubectl -n "$E2E_NS" wait --for=condition=Ready pod/cache-reader --timeout=180s >/dev/null \
    || fail "cache reader" "the consumer pod did not start"
  wait_value 60 'round [0-9]+ ok' -n "$E2E_NS" logs cache-reader --tail=1 \
    || fail "cache reader" "the consumer cannot read $MOUNT_ROOT/e2e: $(kubectl -n "$E2E_NS" logs cache-reader --tail=5)"
  pass "consumer pod reads the image through hostPath + HostToContainer" "$t"

  t=$SECONDS
  wait_value 240 Cached get ncr "e2e-cache.$NODE" -o 'jsonpath={.status.images[?(@.name=="e2e")].state}' \
    || fail "nc e2e-cache" "image e2e did not become Cached while read"
  local mounts rounds
  mounts=$(node_mounts)
  note "mounts on the node:"; printf '%s\n' "$mounts" | sed 's/^/     /'
  [ "$(printf '%s\n' "$mounts" | awk -v t="$MOUNT_ROOT/e2e" '$1 == t' | wc -l)" -eq 2 ] \
    || fail "switch" "expected two stacked mounts at $MOUNT_ROOT/e2e on the node"
  local backing
  backing=$(on_node "losetup -l -n -O BACK-FILE" | grep -c "$NODE_DIR/" || true)
  [ "$backing" -ge 2 ] || fail "switch" "expected loop devices on the source image and on the copy in $NODE_DIR/cache"
  if [ "${QUARRY_E2E_HOST_IS_NODE:-0}" = 1 ]; then
    [ "$(findmnt -rn -o TARGET | grep -cx "$MOUNT_ROOT/e2e")" -eq 2 ] \
      || fail "switch" "findmnt on this machine (the node) does not show two mounts at $MOUNT_ROOT/e2e"
  fi
  rounds=$(kubectl -n "$E2E_NS" logs cache-reader | grep -c ' ok$' || true)
  sleep 4   # a few more rounds that read the local copy
  local after
  after=$(kubectl -n "$E2E_NS" logs cache-reader | grep -c ' ok$' || true)
  ((after > rounds)) || fail "switch" "the consumer stopped reading after the switch"
  if kubectl -n "$E2E_NS" logs cache-reader | grep READ-ERROR >/dev/null; then
    kubectl -n "$E2E_NS" logs cache-reader | grep -A5 READ-ERROR | sed -n 1,20p >&2
    fail "switch" "the consumer saw read errors"
  fi
  pass "image Cached: copied and switched under the reader; $rounds rounds before, $((after - rounds)) after, 0 errors" "$t"

  t=$SECONDS
  wait_value 60 Ready get nc e2e-cache -o 'jsonpath={.status.phase}' || fail "nc e2e-cache" "phase is not Ready"
  wait_value 60 1 get nc e2e-cache -o 'jsonpath={.status.cachedCopies}' || fail "nc e2e-cache" "cachedCopies is not 1"
  columns "kubectl get nc" "$NC_COLUMNS" nc e2e-cache || fail "nc columns" "see above"
  [[ $ROW =~ ^e2e-cache\ Ready\ 1/1\ 1\ [0-9.]+%?\  ]] \
    || fail "nc e2e-cache columns" "row [$ROW], expected e2e-cache Ready 1/1 1 <hit> <age>"
  columns "kubectl get ncr" "$NCR_COLUMNS" ncr "e2e-cache.$NODE" || fail "ncr columns" "see above"
  [[ $ROW =~ ^e2e-cache\.$NODE\ $NODE\ Ready\ 1\ 1\  ]] \
    || fail "ncr columns" "row [$ROW], expected e2e-cache.$NODE $NODE Ready 1 1 ..."
  pass "kubectl get nc: Ready 1/1 with one copy; kubectl get ncr: mounted 1, cached 1" "$t"

  t=$SECONDS
  kubectl -n "$E2E_NS" delete pod cache-reader --wait=true --timeout=60s >/dev/null
  kubectl delete nc e2e-cache --timeout=180s >/dev/null || fail "delete nc" "the NodeCache was not deleted within 180 s"
  note "NodeCache gone after $((SECONDS - t)) s"
  [ -z "$(kubectl get ncr -l quarry.dev/nodecache=e2e-cache -o name)" ] || fail "delete nc" "NodeCacheReports left"
  wait_value 120 '' -n "$RELEASE_NS" get pods -l quarry.dev/nodecache=e2e-cache -o name \
    || fail "delete nc" "agent pods left"
  mounts=$(node_mounts)
  [ -z "$mounts" ] || fail "delete nc" "still mounted under $MOUNT_ROOT: $mounts"
  [ -z "$(on_node "ls -A $NODE_DIR/cache 2>/dev/null")" ] || fail "delete nc" "files left in $NODE_DIR/cache"
  ! on_node "losetup -l -n -O BACK-FILE" | grep "$NODE_DIR/" >/dev/null \
    || fail "delete nc" "loop devices still attached to files of $NODE_DIR"
  pass "NodeCache deleted: agent gone, nothing mounted under $MOUNT_ROOT, no copies, no loop devices" "$t"
}

# ---- uninstall --------------------------------------------------------------------------------------------------
part_uninstall() {
  set -e
  local t=$SECONDS
  say "uninstall: the test namespace, then helm uninstall"
  kubectl get ssj,dss -n "$E2E_NS" 2>&1 | sed 's/^/   | /'
  local restarts
  restarts=$(kubectl -n "$RELEASE_NS" get pods -l app.kubernetes.io/component=operator \
    -o 'jsonpath={range .items[*]}{.status.containerStatuses[0].restartCount}{" "}{end}')
  [[ $restarts =~ ^(0 )+$ ]] || fail "operator restarts" "the operator restarted during the run (counts: $restarts)"
  pass "the operator ran without a restart (leader election kept its lease)" "$t"
  t=$SECONDS
  kubectl delete nc e2e-cache --ignore-not-found --timeout=180s >/dev/null || fail "uninstall" "NodeCache not deleted"
  kubectl delete namespace "$E2E_NS" --ignore-not-found --timeout=300s >/dev/null \
    || fail "uninstall" "namespace $E2E_NS was not deleted within 300 s"
  "$HELM" uninstall "$RELEASE" --namespace "$RELEASE_NS" --wait --timeout 3m >/dev/null || fail "uninstall" "helm uninstall failed"
  kubectl delete namespace "$RELEASE_NS" --ignore-not-found --timeout=180s >/dev/null \
    || fail "uninstall" "namespace $RELEASE_NS was not deleted"
  local left
  left=$(kubectl get pods -A -l app.kubernetes.io/part-of=quarry --no-headers 2>/dev/null; \
         kubectl get pods -A --no-headers 2>/dev/null | awk -v a="$E2E_NS" -v b="$RELEASE_NS" '$1 == a || $1 == b')
  [ -z "$left" ] || fail "uninstall" "pods left: $left"
  [ -z "$(kubectl get ncr -o name 2>/dev/null | grep e2e-cache || true)" ] || fail "uninstall" "NodeCacheReports left"
  local mounts
  mounts=$(node_mounts)
  [ -z "$mounts" ] || fail "uninstall" "still mounted under $MOUNT_ROOT on the node: $mounts"
  local scratch
  scratch=$(s3 lsf -R "e2e:$BUCKET/.quarry-scratch/" 2>/dev/null || true)
  [ -z "$scratch" ] || fail "uninstall" "scratch data left in s3://$BUCKET/.quarry-scratch/: $(head -n 5 <<<"$scratch")"
  pass "uninstalled: no pods, no mounts under $MOUNT_ROOT, no scratch data in s3://$BUCKET" "$t"
}

# Removes what the run put on the node and in the bucket (also after a failure).
finish() {
  [ "${QUARRY_E2E_KEEP:-0}" = 1 ] && { note "QUARRY_E2E_KEEP=1: release, resources and node pod kept"; return; }
  if kubectl -n "$NODE_NS" get pod "$NODE_POD" >/dev/null 2>&1; then
    on_node "rm -rf $NODE_DIR/images; rmdir $NODE_DIR/cache $MOUNT_ROOT 2>/dev/null; true" >/dev/null 2>&1 || true
  fi
  kubectl delete namespace "$NODE_NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  s3 purge "e2e:$BUCKET" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}

echo "e2e: cluster $(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}'), S3 $S3_ENDPOINT" \
  "(from here $S3_HOST_ENDPOINT), images $QUARRY_E2E_OPERATOR_IMAGE $WORKER_IMAGE $QUARRY_E2E_AGENT_IMAGE"
run_part() {
  local part=$1 started=$SECONDS
  ( "part_$part" )
  local rc=$?
  printf '   (%s: %ss)\n' "$part" "$((SECONDS - started))"
  return $rc
}
if run_part install; then
  for part in $PARTS; do
    case $part in sort | sync | cache) run_part "$part" ;; *) echo "e2e: unknown part $part" >&2 ;; esac
  done
  [ "${QUARRY_E2E_KEEP:-0}" = 1 ] || run_part uninstall
fi
finish_results=$(cat "$SUITE_RESULTS")
finish
echo
echo "== e2e results ($((SECONDS - suite_start)) s)"
printf '%s\n' "$finish_results"
passed=$(grep -c '^PASS' <<<"$finish_results" || true)
failed=$(grep -c '^FAIL' <<<"$finish_results" || true)
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
