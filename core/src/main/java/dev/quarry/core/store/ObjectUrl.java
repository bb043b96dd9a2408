package dev.quarry.core.store;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * An object URL taken apart: which store (an S3 bucket, or the local filesystem) and which key in it.
 *
 * <p>Every local path, {@code file:///...} or plain, belongs to one filesystem store rooted at "/", and its key is the
 * absolute path without the leading '/': {@code file:///data/ds/train-0.tar} is key {@code data/ds/train-0.tar}. So
 * a URL and the equal plain path give the same store and key, and one listing can walk any directory. Plain paths
 * are made absolute against the working directory and normalized (so "../x" works as in a shell); file:// URLs are
 * taken literally and, like s3:// URLs, neither normalized nor percent-decoded, so a ".." component is refused. A
 * trailing '/' is kept: it marks a prefix.
 */
public record ObjectUrl(String storeId, String bucket, String key) {
  private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*", Pattern.DOTALL);
  static final String FILE_STORE_ID = "file:///";

  public boolean isFile() {
    return bucket == null;
  }

  /** Parses {@code url} without opening any store; refuses what {@link ObjectStores#locate} refuses. */
  public static ObjectUrl parse(String url) {
    if (url == null || url.isBlank()) {
      throw invalid(url);
    }
    if (url.startsWith("s3://")) {
      String rest = url.substring("s3://".length());
      int slash = rest.indexOf('/');
      String bucket = BucketNames.check(slash < 0 ? rest : rest.substring(0, slash));
      String key = slash < 0 ? "" : rest.substring(slash + 1);
      return new ObjectUrl("s3://" + bucket, bucket, ObjectKeys.checkLocationKey(key));
    }
    if (url.startsWith("file:///")) {
      return file(url.substring("file:///".length()));
    }
    if (SCHEME.matcher(url).matches()) {
      throw invalid(url);
    }
    try {
      Path absolute = Path.of(url).toAbsolutePath().normalize();
      String key = absolute.toString().substring(1);
      return file(key.isEmpty() || !url.endsWith("/") ? key : key + "/");
    } catch (InvalidPathException e) {
      throw invalid(url);
    }
  }

  private static ObjectUrl file(String key) {
    ObjectKeys.checkLocationKey(key);
    String[] components = key.split("/", -1);
    for (int i = 0; i < components.length; i++) {
      boolean trailingSlash = i == components.length - 1 && components[i].isEmpty();
      if ((components[i].isEmpty() && !trailingSlash) || components[i].equals(".")
          || components[i].indexOf('\0') >= 0) {
        throw new IllegalArgumentException("Invalid object key: " + key + " (a local path must not have empty or"
            + " '.' components or NUL characters)");
      }
    }
    return new ObjectUrl(FILE_STORE_ID, null, key);
  }

  private static IllegalArgumentException invalid(String url) {
    return new IllegalArgumentException("Invalid object URL: " + url
        + " (must be s3://bucket/key, file:///path or a local path)");
  }
}
