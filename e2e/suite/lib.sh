# Helpers of the end-to-end suite (e2e/suite/run.sh): results, waiting, diagnostics, S3 from this machine.
# shellcheck shell=bash

SUITE_RESULTS=${SUITE_RESULTS:-}

say() { printf '\n== %s\n' "$*"; }
note() { printf '   %s\n' "$*"; }

# pass NAME STARTED: records a passed check with its duration since STARTED (a $SECONDS value).
pass() {
  local line
  line=$(printf 'PASS %-62s %4ss' "$1" "$(( SECONDS - $2 ))")
  echo "$line"
  echo "$line" >>"$SUITE_RESULTS"
}

# fail NAME MESSAGE: records a failed check, prints what helps to find why, and ends the current part (parts run
# in subshells, so the next part still runs).
fail() {
  local line="FAIL $1: $2"
  echo "$line" >&2
  echo "$line" >>"$SUITE_RESULTS"
  diagnostics >&2
  exit 1
}

# skip NAME REASON
skip() {
  echo "SKIP $1: $2"
  echo "SKIP $1: $2" >>"$SUITE_RESULTS"
}

# Pods, events, the resources, and the last log lines of every pod of the test and release namespaces.
diagnostics() {
  local ns pod
  echo "---- diagnostics ($(date -u +%H:%M:%S)) ----"
  kubectl get ssj,dss -n "$E2E_NS" -o wide 2>&1 | sed 's/^/    /'
  kubectl get nc,ncr -o wide 2>&1 | sed 's/^/    /'
  for ns in "$E2E_NS" "$RELEASE_NS"; do
    echo "  pods in $ns:"
    kubectl -n "$ns" get pods -o wide 2>&1 | sed 's/^/    /'
    echo "  events in $ns (last 25):"
    kubectl -n "$ns" get events --sort-by=.lastTimestamp 2>&1 | tail -n 25 | sed 's/^/    /'
    for pod in $(kubectl -n "$ns" get pods -o name 2>/dev/null); do
      echo "  logs of $ns/${pod#pod/} (last 20 lines):"
      kubectl -n "$ns" logs "$pod" --all-containers --tail=20 2>&1 | sed 's/^/    /'
    done
  done
  echo "---- end of diagnostics ----"
}

# wait_value TIMEOUT WANTED KUBECTL-ARGS...: waits until `kubectl ARGS` prints WANTED (a regular expression,
# anchored); returns 1 on timeout, after printing what it last saw.
wait_value() {
  local timeout=$1 wanted=$2 now=""
  shift 2
  local deadline=$((SECONDS + timeout))
  while ((SECONDS < deadline)); do
    now=$(kubectl "$@" 2>/dev/null || true)
    [[ $now =~ ^($wanted)$ ]] && return 0
    sleep 1
  done
  echo "   timed out after ${timeout}s waiting for [$wanted] from kubectl $*; last value: [$now]" >&2
  return 1
}

# columns WHAT EXPECTED-HEADER KUBECTL-GET-ARGS...: checks that `kubectl get ARGS` has exactly the header
# EXPECTED-HEADER (words separated by single spaces), prints the table, and stores the first row in $ROW.
columns() {
  local what=$1 expected=$2 table header
  shift 2
  table=$(kubectl get "$@") || return 1
  printf '%s\n' "$table" | sed 's/^/   | /'
  header=$(printf '%s\n' "${table%%$'\n'*}" | tr -s ' ')
  header=${header% }
  if [ "$header" != "$expected" ]; then
    echo "   $what: the columns are [$header], expected [$expected]" >&2
    return 1
  fi
  # shellcheck disable=SC2034  # read by the callers
  ROW=$(printf '%s\n' "$table" | sed -n 2p | tr -s ' ')
}

# S3 from this machine, through rclone with a remote named e2e defined in the environment.
s3_setup() {
  export RCLONE_CONFIG_E2E_TYPE=s3 RCLONE_CONFIG_E2E_PROVIDER=Minio RCLONE_CONFIG_E2E_ENV_AUTH=false
  export RCLONE_CONFIG_E2E_ENDPOINT=$S3_HOST_ENDPOINT RCLONE_CONFIG_E2E_ACCESS_KEY_ID=$S3_ACCESS_KEY
  export RCLONE_CONFIG_E2E_SECRET_ACCESS_KEY=$S3_SECRET_KEY RCLONE_CONFIG_E2E_FORCE_PATH_STYLE=true
  export RCLONE_CONFIG_E2E_REGION=us-east-1
}
# AWS_CA_BUNDLE (set on some machines for the AWS CLI) makes rclone refuse to start: its transport cannot take it.
s3() { env -u AWS_CA_BUNDLE rclone --config /dev/null --retries 3 --low-level-retries 3 "$@"; }

# sha256_s3 PREFIX: "<sha256>  <name>" of every .tar object directly under e2e:PREFIX, sorted by name.
sha256_s3() { s3 hashsum sha256 --download --max-depth 1 --include '*.tar' "e2e:$1" | sort -k2; }
# sha256_dir DIR: the same for local files.
sha256_dir() { (cd "$1" && sha256sum -- *.tar | sort -k2); }
