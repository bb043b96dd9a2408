package dev.quarry.core.store;

import java.util.regex.Pattern;

/** The S3 rules for bucket names, checked before any request so that a typo fails with a clear message. */
final class BucketNames {
  private static final Pattern ALLOWED = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern IP_ADDRESS = Pattern.compile("[0-9]+\\.[0-9]+\\.[0-9]+\\.[0-9]+");

  private BucketNames() {}

  static String check(String bucket) {
    if (bucket == null || !ALLOWED.matcher(bucket).matches() || bucket.contains("..")
        || IP_ADDRESS.matcher(bucket).matches() || bucket.startsWith("xn--") || bucket.startsWith("sthree-")
        || bucket.endsWith("-s3alias") || bucket.endsWith("--ol-s3")) {
      throw new IllegalArgumentException("Invalid bucket name: " + bucket
          + " (must be 3 to 63 lowercase letters, digits, dots and hyphens, start and end with a letter or digit,"
          + " and not look like an IP address)");
    }
    return bucket;
  }
}
