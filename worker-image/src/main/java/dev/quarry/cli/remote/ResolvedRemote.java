package dev.quarry.cli.remote;

import dev.quarry.core.store.S3Settings;
import dev.quarry.core.text.Printable;
import java.nio.file.Path;

/**
 * Where a command's remote is and how to reach it.
 *
 * @param name the remote's name in the config, or null when given as a URL
 * @param url the store URL: s3://bucket/prefix or a local path
 * @param s3 the S3 settings for it: the environment's, changed by the remote's endpoint, profile and region
 * @param entry the remote as its config file declares it, or null when given as a URL
 * @param source the config file it comes from, or null when given as a URL
 */
public record ResolvedRemote(String name, String url, S3Settings s3, RemoteEntry entry, Path source) {
  /** A URL or path given as is: the environment's settings. */
  public static ResolvedRemote ofUrl(String url) {
    return new ResolvedRemote(null, url, S3Settings.fromEnvironment(), null, null);
  }

  /**
   * For a remote by name, which file it came from and where it sends requests: "remote origin (from
   * /data/.quarry/config): s3://bucket/cas, endpoint http://minio:9000, profile minio", so that a remote a cloned
   * folder's config replaced is seen before a push; null for a URL.
   */
  public String describe() {
    if (entry == null) {
      return null;
    }
    StringBuilder text = new StringBuilder("remote ").append(name).append(" (from ").append(source).append("): ")
        .append(Printable.of(url));
    if (entry.endpoint() != null) {
      text.append(", endpoint ").append(Printable.of(entry.endpoint()));
    }
    if (entry.profile() != null) {
      text.append(", profile ").append(Printable.of(entry.profile()));
    }
    if (entry.region() != null) {
      text.append(", region ").append(Printable.of(entry.region()));
    }
    return text.toString();
  }
}
