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

  /**
   * A normalized absolute filesystem path: one or more segments, none empty, {@code .} or {@code ..}, no trailing
   * slash. Such a path names the same place however it is joined or resolved, so a prefix check on it is a
   * containment check.
   */
  public static final String NORMALIZED_ABSOLUTE_PATH = "^(/" + Patterns.PATH_SEGMENT + ")+$";

  /** A normalized relative path: the segments of {@link #NORMALIZED_ABSOLUTE_PATH} without the leading slash. */
  public static final String NORMALIZED_RELATIVE_PATH = "^" + Patterns.PATH_SEGMENT + "(/" + Patterns.PATH_SEGMENT
      + ")*$";

  /** One segment of a path that is neither empty, {@code .} nor {@code ..} (RE2 has no lookahead). */
  public static final String PATH_SEGMENT = "([^/.][^/]*|[.][^/.][^/]*|[.][.][^/]+)";

  /** The CEL call, after a string, that holds when it is a {@link #NORMALIZED_ABSOLUTE_PATH}. */
  public static final String MATCHES_NORMALIZED_ABSOLUTE_PATH = ".matches('" + NORMALIZED_ABSOLUTE_PATH + "')";

  /** What {@link #MATCHES_NORMALIZED_ABSOLUTE_PATH} refuses, after the field's name. */
  public static final String NORMALIZED_ABSOLUTE_PATH_MESSAGE =
      " must be a normalized absolute path (no '.', '..' or empty segments, no trailing '/')";

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
