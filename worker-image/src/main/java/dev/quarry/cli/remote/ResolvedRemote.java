package dev.quarry.cli.remote;

import dev.quarry.core.store.S3Settings;

/**
 * Where a command's remote is and how to reach it.
 *
 * @param name the remote's name in the config, or null when given as a URL
 * @param url the store URL: s3://bucket/prefix or a local path
 * @param s3 the S3 settings for it: the environment's, changed by the remote's endpoint, profile and region
 */
public record ResolvedRemote(String name, String url, S3Settings s3) {
  /** A URL or path given as is: the environment's settings. */
  public static ResolvedRemote ofUrl(String url) {
    return new ResolvedRemote(null, url, S3Settings.fromEnvironment());
  }
}
