package dev.quarry.api.common;

/** Regular expressions the schema uses to refuse malformed values at {@code kubectl apply}. */
public final class Patterns {
  /** An S3 URL: a bucket name (3 to 63 characters) with an optional key or prefix. */
  public static final String S3_URL = "^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$";

  /** A byte count as a whole Kubernetes quantity: {@code 268435456}, {@code 256Mi}, {@code 2G}. */
  public static final String BYTE_SIZE = "^[1-9][0-9]*(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$";

  /** A byte count, or a percentage of the filesystem from 1% to 100%. */
  public static final String BYTE_SIZE_OR_PERCENT =
      "^([1-9][0-9]*(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?|([1-9][0-9]?|100)%)$";

  /** A Go-style duration: {@code 90s}, {@code 10m}, {@code 1h30m}. */
  public static final String DURATION = "^([0-9]+(ms|s|m|h))+$";

  /** An absolute filesystem path. */
  public static final String ABSOLUTE_PATH = "^/.*$";

  /** A DNS-1123 label: lower-case letters, digits and '-', starting and ending alphanumeric. */
  public static final String DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

  /** A DNS-1123 subdomain, the form of most Kubernetes object names (Secrets, PVCs). */
  public static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$";

  /** A SHA-256 digest written as {@code sha256:<64 hex digits>}. */
  public static final String SHA256_DIGEST = "^sha256:[a-f0-9]{64}$";

  /** A version name in a content-addressed remote (a ref): letters, digits, '.', '_' and '-'. */
  public static final String REF_NAME = "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$";

  private Patterns() {}
}
