#!/usr/bin/env bash
# install-test-tools.sh - build the e2e test tools from their Go modules at pinned
# versions and cache them outside the repository.
#
# Needs only Go (>= 1.26) and the Go module proxy. A second run takes seconds.
#
# Layout (other code depends on it):
#   $QUARRY_TOOLS_DIR (default $HOME/.cache/quarry/tools)
#     minio-<v>/minio
#     kubernetes-<v>/{kube-apiserver,kubectl,kube-controller-manager,kube-scheduler,kubelet}
#     kube-proxy-<v>/kube-proxy
#     etcd-<v>/etcd
#     helm-<v>/helm
#     toxiproxy-<v>/{toxiproxy-server,toxiproxy-cli}
#     prometheus-<v>/promtool        (checks the chart's alert rules)
#     bin/<every binary above>      symlinks
#     versions.env                  MINIO_VERSION, KUBERNETES_VERSION, ... (shell assignments)
#     logs/<tool>-<v>.log           build logs
#     build/<tool>-<v>/             generated wrapper Go modules
#   Every versioned folder gets a .complete marker written last; a folder without it
#   (e.g. a killed build) is rebuilt.
#
# fabric8 kube-api-test (io.fabric8:kube-api-test 7.5.2) looks for
#   $KUBE_API_TEST_DIR/k8s/<kubernetes version>-<os>-<arch>/{kube-apiserver,etcd,kubectl}
# (KUBE_API_TEST_DIR defaults to ~/.kubeapitest); the script symlinks our binaries there.
#
# Usage: install-test-tools.sh [--print-env]
#   --print-env   ensure the tools, then print versions.env on stdout (progress goes to stderr)
set -euo pipefail

# ---- pinned versions (versions.env values carry no leading "v") ----------------------
# MinIO publishes no semver tags; the module proxy only knows pseudo-versions.
MINIO_MODULE_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
KUBERNETES_VERSION=1.34.4
ETCD_VERSION=3.6.16
HELM_VERSION=3.22.0
TOXIPROXY_VERSION=2.12.0
# Prometheus 3.x publishes its Go module as v0.<major*100+minor>.<patch>: v0.316.0 is Prometheus 3.16.0.
PROMETHEUS_MODULE_VERSION=v0.316.0

MINIO_VERSION=${MINIO_MODULE_VERSION#v}

K8S_BINARIES=(kube-apiserver kubectl kube-controller-manager kube-scheduler kubelet)

# ---- options -----------------------------------------------------------------------------
PRINT_ENV=0
for arg in "$@"; do
  case "$arg" in
    --print-env) PRINT_ENV=1 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-test-tools.sh: unknown argument: $arg (try --help)" >&2; exit 2 ;;
  esac
done

QUARRY_TOOLS_DIR=${QUARRY_TOOLS_DIR:-$HOME/.cache/quarry/tools}
KUBE_API_TEST_DIR=${KUBE_API_TEST_DIR:-$HOME/.kubeapitest}
BIN_DIR=$QUARRY_TOOLS_DIR/bin
LOG_DIR=$QUARRY_TOOLS_DIR/logs
BUILD_DIR=$QUARRY_TOOLS_DIR/build

say() {
  if [[ $PRINT_ENV == 1 ]]; then printf '%s\n' "$*" >&2; else printf '%s\n' "$*"; fi
}
die() { printf 'install-test-tools.sh: ERROR: %s\n' "$*" >&2; exit 1; }

command -v go >/dev/null 2>&1 || die "go is not on PATH (Go >= 1.26 is needed)"
go_version=$(go env GOVERSION)   # e.g. go1.26.8
go_mm=${go_version#go}; go_major=${go_mm%%.*}; go_minor=${go_mm#*.}; go_minor=${go_minor%%[!0-9]*}
if ((go_major < 1 || (go_major == 1 && go_minor < 26))); then
  die "Go >= 1.26 is needed (etcd $ETCD_VERSION and helm $HELM_VERSION declare go 1.26.0); found $go_version"
fi

mkdir -p "$QUARRY_TOOLS_DIR" "$BIN_DIR" "$LOG_DIR" "$BUILD_DIR"

# Serialise concurrent runs (e.g. two test jobs on one machine).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$QUARRY_TOOLS_DIR/.lock"
  flock 9
fi

# Build settings: static, trimmed, stripped binaries. Go build and module caches are
# Go's defaults ($HOME/.cache/go-build, $HOME/go/pkg/mod) unless GOCACHE/GOMODCACHE are set.
export CGO_ENABLED=0
export GOFLAGS="-trimpath -buildvcs=false"
export GO111MODULE=on
unset GOOS GOARCH GOWORK 2>/dev/null || true
export GOWORK=off
GO_PARALLEL=${QUARRY_TOOLS_GO_P:-2}   # at most 2 parallel compiles

# ---- generic "ensure" machinery ----------------------------------------------------------

# is_complete DIR BIN...  -> 0 when DIR/.complete exists and every BIN is executable
is_complete() {
  local dir=$1; shift
  [[ -f $dir/.complete ]] || return 1
  local b
  for b in "$@"; do [[ -x $dir/$b ]] || return 1; done
}

# ensure NAME VERSION BUILD_FUNCTION BIN...
# Builds into $QUARRY_TOOLS_DIR/NAME-VERSION unless complete, then links BIN... into bin/.
ensure() {
  local name=$1 version=$2 fn=$3; shift 3
  local dir=$QUARRY_TOOLS_DIR/$name-$version
  local log=$LOG_DIR/$name-$version.log
  if is_complete "$dir" "$@"; then
    say "$name $version: cached"
  else
    say "$name $version: building (log: $log) ..."
    rm -rf "$dir"
    mkdir -p "$dir"
    local start=$SECONDS rc
    set +e
    ( set -e; cd "$BUILD_DIR"; "$fn" "$dir" ) >"$log" 2>&1
    rc=$?
    set -e
    if [[ $rc != 0 ]]; then
      tail -n 25 "$log" >&2 || true
      die "building $name $version failed (exit $rc); full log: $log"
    fi
    local b
    for b in "$@"; do
      [[ -x $dir/$b ]] || die "building $name $version did not produce $dir/$b; see log: $log"
    done
    printf 'built %s %s on %s with %s in %s s\n' "$name" "$version" "$(date -u +%FT%TZ)" \
      "$go_version" "$((SECONDS - start))" >"$dir/.complete"
    say "$name $version: done in $((SECONDS - start)) s"
  fi
  local b
  for b in "$@"; do ln -sfn "$dir/$b" "$BIN_DIR/$b"; done
}

# reports_version BINARY LINE: prints BINARY's --version and fails unless one of its lines is LINE. The output is
# taken whole before it is tested: `BINARY --version | grep -q` fails at random under pipefail (grep exits at the
# first match, and the binary writing after that dies of SIGPIPE, exit 141).
reports_version() {
  local reported
  reported=$("$1" --version)
  echo "$reported"
  grep -qxF "$2" <<<"$reported" || { echo "Cannot use $1: its --version does not say $2" >&2; return 1; }
}

# module_field MODULE@VERSION FIELD -> value of a string field of `go list -m -json`
module_field() {
  go list -m -json "$1" | sed -n "s/^[[:space:]]*\"$2\": \"\\(.*\\)\",\{0,1\}\$/\\1/p" | sed -n 1p
}

# ---- builders (run in a subshell with set -e; stdout/stderr go to the log) ---------------

build_minio() {
  local out=$1
  local time tag
  time=$(module_field "github.com/minio/minio@$MINIO_MODULE_VERSION" Time)   # 2026-02-12T20:18:48Z
  tag="DEVELOPMENT.${time//:/-}"
  local commit=${MINIO_MODULE_VERSION##*-}
  local pkg=github.com/minio/minio/cmd
  local ld="-s -w -X $pkg.Version=$time -X $pkg.ReleaseTag=$tag -X $pkg.CommitID=$commit -X $pkg.ShortCommitID=$commit -X $pkg.CopyrightYear=${time:0:4}"
  GOBIN=$out go install -p "$GO_PARALLEL" -ldflags "$ld" "github.com/minio/minio@$MINIO_MODULE_VERSION"
  "$out/minio" --version
}

# k8s_wrapper_module DIR CMD... -> cds into DIR, a module that requires k8s.io/kubernetes with the given
# commands (kube-apiserver, ...) resolved, and sets K8S_LDFLAGS to the flags that stamp the version in.
k8s_wrapper_module() {
  local wdir=$1 v=$KUBERNETES_VERSION; shift
  rm -rf "$wdir"; mkdir -p "$wdir"; cd "$wdir"

  # k8s.io/kubernetes cannot be `go install`ed: its go.mod requires the staging modules
  # (k8s.io/api, client-go, ...) at v0.0.0 and replaces them with ./staging/src/... .
  # Wrap it in a module that replaces every one of them with its published v0.MINOR.PATCH.
  local gomod gover staging mod
  gomod=$(go mod download -json "k8s.io/kubernetes@v$v" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [[ -f $gomod ]] || { echo "cannot find go.mod of k8s.io/kubernetes@v$v"; return 1; }
  gover=$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$gomod")
  staging=$(awk '/=>[[:space:]]*\.\/staging\/src\// { for (i = 1; i <= NF; i++) if ($i == "=>") print $(i-1) }' "$gomod" | sort -u)
  [[ -n $staging ]] || { echo "no staging replace directives found in $gomod"; return 1; }
  echo "staging modules replaced with v0.${v#*.}:"; echo "$staging"

  {
    echo "// generated by e2e/tools/install-test-tools.sh - do not edit"
    echo "module quarry.local/e2e-tools/kubernetes"
    echo
    echo "go $gover"
    echo
    echo "require k8s.io/kubernetes v$v"
    echo
    echo "replace ("
    for mod in $staging; do echo "	$mod => $mod v0.${v#*.}"; done
    echo ")"
  } >go.mod

  local pkgs=() b
  for b in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
  go get "${pkgs[@]/%/@v$v}"

  local major=${v%%.*} minor=${v#*.}; minor=${minor%%.*}
  local built
  built=$(module_field "k8s.io/kubernetes@v$v" Time)
  local ld="-s -w" p
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=v$v -X $p.gitMajor=$major -X $p.gitMinor=$minor"
    ld+=" -X $p.gitTreeState=clean -X $p.buildDate=$built -X $p.gitCommit="
  done
  K8S_LDFLAGS=$ld
}

build_kubernetes() {
  local out=$1 v=$KUBERNETES_VERSION
  k8s_wrapper_module "$BUILD_DIR/kubernetes-$v" "${K8S_BINARIES[@]}"
  local ld=$K8S_LDFLAGS
  # core binaries first (needed by kube-api-test), then the rest of the node/control plane
  local t=$SECONDS b
  go build -p "$GO_PARALLEL" -ldflags "$ld" -o "$out/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl
  echo "TIMING kube-apiserver+kubectl: $((SECONDS - t)) s"; t=$SECONDS
  local rest=()
  for b in "${K8S_BINARIES[@]}"; do
    [[ $b == kube-apiserver || $b == kubectl ]] || rest+=("k8s.io/kubernetes/cmd/$b")
  done
  if ((${#rest[@]})); then
    go build -p "$GO_PARALLEL" -ldflags "$ld" -o "$out/" "${rest[@]}"
    echo "TIMING ${rest[*]}: $((SECONDS - t)) s"
  fi
  "$out/kubectl" version --client
  reports_version "$out/kube-apiserver" "Kubernetes v$v"
}

# kube-proxy has a folder of its own so that adding it did not rebuild (and briefly remove) the binaries
# above, which running tests use; only the e2e cluster (e2e/cluster/cluster.sh) needs it.
build_kube_proxy() {
  local out=$1 v=$KUBERNETES_VERSION
  k8s_wrapper_module "$BUILD_DIR/kube-proxy-$v" kube-proxy
  go build -p "$GO_PARALLEL" -ldflags "$K8S_LDFLAGS" -o "$out/" k8s.io/kubernetes/cmd/kube-proxy
  reports_version "$out/kube-proxy" "Kubernetes v$v"
}

build_etcd() {
  local out=$1 v=$ETCD_VERSION
  local wdir=$BUILD_DIR/etcd-$v
  rm -rf "$wdir"; mkdir -p "$wdir"; cd "$wdir"
  # go.etcd.io/etcd/server/v3 (whose root package is etcd's main) has replace directives
  # pointing at ../api etc., so `go install ...@v` refuses it; use a wrapper module.
  printf '// generated by e2e/tools/install-test-tools.sh - do not edit\nmodule quarry.local/e2e-tools/etcd\n\ngo 1.24\n' >go.mod
  go get "go.etcd.io/etcd/server/v3@v$v"
  go build -p "$GO_PARALLEL" -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3
  reports_version "$out/etcd" "etcd Version: $v"
}

build_helm() {
  local out=$1 v=$HELM_VERSION
  local p=helm.sh/helm/v3/internal/version
  GOBIN=$out go install -p "$GO_PARALLEL" \
    -ldflags "-s -w -X $p.version=v$v -X $p.gitTreeState=clean" "helm.sh/helm/v3/cmd/helm@v$v"
  "$out/helm" version
}

build_toxiproxy() {
  local out=$1 v=$TOXIPROXY_VERSION
  local tmp=$out/.gobin
  GOBIN=$tmp go install -p "$GO_PARALLEL" \
    -ldflags "-s -w -X github.com/Shopify/toxiproxy/v2.Version=$v" \
    "github.com/Shopify/toxiproxy/v2/cmd/server@v$v" "github.com/Shopify/toxiproxy/v2/cmd/cli@v$v"
  mv "$tmp/server" "$out/toxiproxy-server"
  mv "$tmp/cli" "$out/toxiproxy-cli"
  rmdir "$tmp"
  "$out/toxiproxy-server" -version
}

build_promtool() {
  local out=$1
  GOBIN=$out go install -p "$GO_PARALLEL" -ldflags "-s -w" \
    "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION"
  "$out/promtool" --version
}

# ---- kube-api-test binary folder ---------------------------------------------------------

# Mirrors io.fabric8.kubeapitest.binary.OSInfo (7.5.2): os = lower-cased os.name
# ("linux"; "darwin" for macOS), arch = arm64 for aarch64, ppc64le for ppc64, else amd64.
kube_api_test_binary_dir() {
  local os arch
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  case "$(uname -m)" in
    aarch64|arm64) arch=arm64 ;;
    *) arch=amd64 ;;
  esac
  echo "$KUBE_API_TEST_DIR/k8s/$KUBERNETES_VERSION-$os-$arch"
}

link_kube_api_test() {
  local kdir
  kdir=$(kube_api_test_binary_dir)
  mkdir -p "$kdir"
  ln -sfn "$QUARRY_TOOLS_DIR/kubernetes-$KUBERNETES_VERSION/kube-apiserver" "$kdir/kube-apiserver"
  ln -sfn "$QUARRY_TOOLS_DIR/kubernetes-$KUBERNETES_VERSION/kubectl" "$kdir/kubectl"
  ln -sfn "$QUARRY_TOOLS_DIR/etcd-$ETCD_VERSION/etcd" "$kdir/etcd"
  say "kube-api-test binaries: $kdir"
}

# ---- main --------------------------------------------------------------------------------

total_start=$SECONDS
ensure minio "$MINIO_VERSION" build_minio minio
ensure kubernetes "$KUBERNETES_VERSION" build_kubernetes "${K8S_BINARIES[@]}"
ensure kube-proxy "$KUBERNETES_VERSION" build_kube_proxy kube-proxy
ensure etcd "$ETCD_VERSION" build_etcd etcd
ensure helm "$HELM_VERSION" build_helm helm
ensure toxiproxy "$TOXIPROXY_VERSION" build_toxiproxy toxiproxy-server toxiproxy-cli
ensure prometheus "${PROMETHEUS_MODULE_VERSION#v}" build_promtool promtool
link_kube_api_test

tmp_env=$(mktemp "$QUARRY_TOOLS_DIR/.versions.env.XXXXXX")
cat >"$tmp_env" <<EOF
# generated by e2e/tools/install-test-tools.sh
MINIO_VERSION=$MINIO_VERSION
KUBERNETES_VERSION=$KUBERNETES_VERSION
ETCD_VERSION=$ETCD_VERSION
HELM_VERSION=$HELM_VERSION
TOXIPROXY_VERSION=$TOXIPROXY_VERSION
PROMETHEUS_MODULE_VERSION=${PROMETHEUS_MODULE_VERSION#v}
QUARRY_TOOLS_BIN=$BIN_DIR
KUBE_API_TEST_DIR=$KUBE_API_TEST_DIR
KUBE_API_TEST_API_SERVER_VERSION=$KUBERNETES_VERSION
EOF
mv -f "$tmp_env" "$QUARRY_TOOLS_DIR/versions.env"

say "all tools ready in $((SECONDS - total_start)) s; binaries in $BIN_DIR"
if [[ $PRINT_ENV == 1 ]]; then cat "$QUARRY_TOOLS_DIR/versions.env"; fi
