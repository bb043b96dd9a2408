# Shared settings of the kind scripts; override any of them in the environment.
KIND_CLUSTER=${KIND_CLUSTER:-quarry}
QUARRY_TAG=${QUARRY_TAG:-dev}
QUARRY_NAMESPACE=${QUARRY_NAMESPACE:-quarry-system}
# The Java runtime base of the three images (any Debian/Ubuntu based Java 21+ JRE image).
JRE_IMAGE=${JRE_IMAGE:-eclipse-temurin:21-jre}
MINIO_IMAGE=${MINIO_IMAGE:-minio/minio:RELEASE.2025-09-07T16-13-09Z}
# This machine reaches the cluster's MinIO through kubectl port-forward on this port.
E2E_S3_LOCAL_PORT=${E2E_S3_LOCAL_PORT:-29000}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KIND_DIR="$ROOT/e2e/kind"

need() {
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "kind e2e: $tool is required on PATH" >&2; exit 1; }
  done
}
