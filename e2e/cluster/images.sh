#!/usr/bin/env bash
# images.sh - container images for the local cluster, built without a registry: podman builds them, then they
# are imported into the cluster's containerd (namespace k8s.io), where kubelet finds them without pulling.
#
# Usage: e2e/cluster/images.sh COMMAND
#   pause                           the pause image, from Kubernetes' own pause.c compiled statically
#   base                            the JRE base image: a minimal Debian root filesystem (debootstrap) with a
#                                   Java runtime made by jlink from this machine's JDK at /opt/java/openjdk
#   build DOCKERFILE CONTEXT TAG    podman build of DOCKERFILE with the base image passed as the build argument
#                                   JRE_IMAGE, then the import of TAG into the cluster
#   print-base                      print the base image's name
#   prune                           remove podman's dangling images (those a rebuild replaced)
# Each command is idempotent: an image already built from the same inputs is not built again, and an image
# already in the cluster is not imported again. `build` and the imports need the cluster up (cluster.sh up).
set -euo pipefail
# shellcheck source=e2e/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The build argument the project's Dockerfiles take for their base (default there: a public Temurin JRE).
BASE_IMAGE_ARG=JRE_IMAGE
# What the base image adds to a minimal Debian: mount and losetup (package mount) and mksquashfs/unsquashfs for
# the node agent, CA certificates for TLS to object stores.
BASE_PACKAGES=mount,squashfs-tools,ca-certificates
# The JDK modules of the runtime: the whole Java SE platform plus the JDK modules a server needs (Unsafe for
# Netty and LZ4, EC crypto, DNS, JFR and JMX); compiler and dev tools are left out.
JRE_MODULES=java.se,jdk.unsupported,jdk.crypto.ec,jdk.crypto.cryptoki,jdk.charsets,jdk.localedata,jdk.zipfs,jdk.naming.dns,jdk.httpserver,jdk.jfr,jdk.management,jdk.management.agent,jdk.management.jfr,jdk.net,jdk.security.auth,jdk.security.jgss,jdk.jcmd,jdk.attach

PODMAN_DIR=$QUARRY_IMAGES_DIR/podman

# podman with configuration of its own: no default ulimits (raising rlimits is refused on these machines),
# cgroupfs (PID 1 is not systemd), storage apart from any other podman user on the machine.
podman_setup() {
  command -v podman >/dev/null || qc_die "podman is missing: run e2e/tools/install-packages.sh --cluster"
  mkdir -p "$PODMAN_DIR/storage" "$PODMAN_DIR/run"
  cat >"$PODMAN_DIR/containers.conf" <<EOF
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$PODMAN_DIR/events.log"
EOF
  cat >"$PODMAN_DIR/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$PODMAN_DIR/storage"
runroot = "$PODMAN_DIR/run"
EOF
  export CONTAINERS_CONF=$PODMAN_DIR/containers.conf CONTAINERS_STORAGE_CONF=$PODMAN_DIR/storage.conf
}

# The name kubelet asks containerd for: a reference without a registry means Docker Hub to Kubernetes, while
# podman would file it under localhost/.
normalize() {
  local ref=$1 first=${1%%/*}
  if [[ $ref != */* ]]; then ref=docker.io/library/$ref
  elif [[ $first != *.* && $first != *:* && $first != localhost ]]; then ref=docker.io/$ref; fi
  [[ ${ref##*/} == *:* || $ref == *@* ]] || ref=$ref:latest
  echo "$ref"
}

# import REF : copies REF from podman's storage into the cluster's containerd unless the same image is there;
# the image id is kept as a label to tell.
import() {
  local ref=$1 id tar
  qc_ctr version >/dev/null 2>&1 || qc_die "Cannot import $ref: the cluster's containerd is not running (start it: e2e/cluster/cluster.sh up)"
  id=$(podman image inspect --format '{{.Id}}' "$ref")
  if qc_ctr images ls "name==$ref" | grep "dev.quarry.image-id=$id" >/dev/null; then
    echo "$ref: already in the cluster"
    return 0
  fi
  tar=$(mktemp "$QUARRY_IMAGES_DIR/import.XXXXXX.tar")
  podman save -q --format docker-archive -o "$tar" "$ref" >/dev/null
  qc_ctr images import "$tar" >/dev/null
  rm -f "$tar"
  qc_ctr images label "$ref" "dev.quarry.image-id=$id" >/dev/null
  echo "$ref: imported into the cluster"
}

# has_image REF KEY : podman has REF built from inputs whose hash is KEY.
has_image() {
  [ "$(podman image inspect --format '{{index .Labels "dev.quarry.inputs"}}' "$1" 2>/dev/null)" = "$2" ]
}

cmd_pause() {
  podman_setup
  qc_tools
  local src key ctx
  src=$(go mod download -json "k8s.io/kubernetes@v$KUBERNETES_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
  src=$src/build/pause/linux/pause.c
  [ -f "$src" ] || qc_die "Cannot build the pause image: $src is missing"
  key=$(cat "$src" "$0" | sha256sum | cut -c1-16)
  if ! has_image "$QC_PAUSE_IMAGE" "$key"; then
    ctx=$(mktemp -d "$QUARRY_IMAGES_DIR/pause.XXXXXX")
    # The flags of Kubernetes' build/pause/Makefile.
    gcc -Os -Wall -Werror -static -DVERSION="v${QC_PAUSE_IMAGE##*:}-quarry" -o "$ctx/pause" "$src"
    printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$ctx/Containerfile"
    podman build -q --network none --label "dev.quarry.inputs=$key" -t "$QC_PAUSE_IMAGE" -f "$ctx/Containerfile" "$ctx" >/dev/null
    rm -rf "$ctx"
    echo "$QC_PAUSE_IMAGE: built"
  fi
  import "$QC_PAUSE_IMAGE"
}

debian_suite() { (. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}"); }

# The Debian mirror apt on this machine uses for SUITE's main component (QUARRY_DEBIAN_MIRROR overrides it).
debian_mirror() {
  local mirror=${QUARRY_DEBIAN_MIRROR:-}
  [ -n "$mirror" ] || mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
    | awk -v suite="$1" '$2 == suite && $3 == "main" && !found { print $1; found = 1 }')
  [ -n "$mirror" ] || qc_die "Cannot find a Debian mirror for $1 in apt's sources (run apt-get update, or set QUARRY_DEBIAN_MIRROR)"
  echo "$mirror"
}

# A minimal Debian root filesystem as a tarball, cached: debootstrap takes minutes, the tarball is reused.
rootfs_tar() {
  local suite mirror out dir
  suite=$(debian_suite)
  mirror=$(debian_mirror "$suite")
  out=$QUARRY_IMAGES_DIR/rootfs-$suite-$(echo "$BASE_PACKAGES" | sha256sum | cut -c1-12).tar
  if [ ! -f "$out" ]; then
    command -v debootstrap >/dev/null || qc_die "debootstrap is missing: run e2e/tools/install-packages.sh --cluster"
    dir=$(mktemp -d "$QUARRY_IMAGES_DIR/rootfs.XXXXXX")
    echo "debootstrap $suite (minbase + $BASE_PACKAGES) from $mirror ..." >&2
    debootstrap --variant=minbase --include="$BASE_PACKAGES" "$suite" "$dir" "$mirror" >"$QUARRY_IMAGES_DIR/debootstrap.log" 2>&1 \
      || { tail -n 20 "$QUARRY_IMAGES_DIR/debootstrap.log" >&2; rm -rf "$dir"; qc_die "debootstrap failed; full log: $QUARRY_IMAGES_DIR/debootstrap.log"; }
    # Package caches and documentation are of no use in an image.
    rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/usr/share/doc/* "$dir"/usr/share/man/* \
      "$dir"/usr/share/locale/*
    tar -C "$dir" --numeric-owner -cf "$out.tmp" .
    rm -rf "$dir"
    mv "$out.tmp" "$out"
  fi
  echo "$out"
}

# A Java runtime made by jlink from the newest JDK >= 21 on this machine, cached per JDK version and module list.
jre_dir() {
  # shellcheck source=e2e/lib/java.sh
  source "$QUARRY_CLUSTER_REPO/e2e/lib/java.sh"
  local version modules out
  version=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.runtime.version/ { print $2 }')
  # Only the modules this JDK has (jdk.crypto.ec, for one, is gone from newer JDKs).
  modules=$("$JAVA_HOME/bin/java" --list-modules | sed 's/@.*//' | grep -Fx -f <(tr , '\n' <<<"$JRE_MODULES") | paste -sd, -)
  out=$QUARRY_IMAGES_DIR/jre-$version-$(echo "$modules cds" | sha256sum | cut -c1-12)
  if [ ! -x "$out/bin/java" ]; then
    rm -rf "$out"
    # --generate-cds-archive: the default class-data archive that the Temurin images have too. Without it the JVM
    # starts slower and cannot make the worker image's dynamic archive (-XX:ArchiveClassesAtExit needs a base).
    "$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-man-pages --no-header-files \
      --compress zip-6 --generate-cds-archive --output "$out" >&2
  fi
  echo "$out"
}

cmd_base() {
  podman_setup
  mkdir -p "$QUARRY_IMAGES_DIR"
  local rootfs jre key ctx
  rootfs=$(rootfs_tar)
  jre=$(jre_dir)
  key=$(printf '%s\n%s\n' "$rootfs" "$jre" | cat - "$0" | sha256sum | cut -c1-16)
  if ! has_image "$QC_BASE_IMAGE" "$key"; then
    ctx=$(mktemp -d "$QUARRY_IMAGES_DIR/base.XXXXXX")
    ln "$rootfs" "$ctx/rootfs.tar"
    cp -a "$jre" "$ctx/jre"
    # The same JAVA_HOME as the Temurin images, so a Dockerfile works on either base.
    cat >"$ctx/Containerfile" <<'EOF'
FROM scratch
ADD rootfs.tar /
COPY jre /opt/java/openjdk
ENV JAVA_HOME=/opt/java/openjdk \
    PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8
EOF
    podman build -q --network none --label "dev.quarry.inputs=$key" -t "$QC_BASE_IMAGE" -f "$ctx/Containerfile" "$ctx" >/dev/null
    rm -rf "$ctx"
    echo "$QC_BASE_IMAGE: built ($("$jre/bin/java" -version 2>&1 | sed -n 1p))"
  fi
  import "$QC_BASE_IMAGE"
}

cmd_build() {
  [ $# -eq 3 ] || qc_die "usage: $0 build DOCKERFILE CONTEXT TAG"
  local dockerfile=$1 context=$2 ref
  [ -f "$dockerfile" ] || qc_die "Cannot build: no Dockerfile at $dockerfile"
  [ -d "$context" ] || qc_die "Cannot build: no build context directory at $context"
  ref=$(normalize "$3")
  [[ $ref != *:latest ]] || echo "warning: $ref has the tag latest, for which kubelet always pulls; use another tag" >&2
  cmd_base >/dev/null
  # Host networking: a RUN step sees the network this machine sees, and podman creates no network of its own.
  podman build --network host --pull=never --build-arg "$BASE_IMAGE_ARG=$QC_BASE_IMAGE" -t "$ref" \
    -f "$dockerfile" "$context"
  import "$ref"
}

case "${1:-}" in
  pause) qc_require_root; cmd_pause ;;
  base) qc_require_root; cmd_base ;;
  build) qc_require_root; shift; cmd_build "$@" ;;
  print-base) echo "$QC_BASE_IMAGE" ;;
  prune) qc_require_root; podman_setup; podman image prune -f ;;
  -h|--help|help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) qc_die "usage: $0 pause|base|build DOCKERFILE CONTEXT TAG|print-base|prune (try --help)" ;;
esac
