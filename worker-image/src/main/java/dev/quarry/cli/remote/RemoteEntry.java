package dev.quarry.cli.remote;

import dev.quarry.core.store.ObjectUrl;
import dev.quarry.core.store.S3Settings;
import java.util.regex.Pattern;

/**
 * A named remote of a config file: where its store is, and for S3 how to reach it.
 *
 * @param name letters, digits, '.', '_' and '-', starting with a letter or digit, so never a path or a URL
 * @param url s3://bucket/prefix, file:///path or a local path (a relative one is relative to the config's folder)
 * @param endpoint the S3 server, or null for the environment's (AWS_ENDPOINT_URL_S3, ..., the profile's)
 * @param profile the AWS profile whose endpoint, region and credentials apply, or null for AWS_PROFILE's
 * @param region the signing region, or null for the environment's or the profile's
 */
public record RemoteEntry(String name, String url, String endpoint, String profile, String region) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  public RemoteEntry {
    requireValidName(name);
    ObjectUrl parsed = ObjectUrl.parse(url);
    if (endpoint != null && S3Settings.endpointFrom("endpoint of remote " + name, endpoint).getUserInfo() != null) {
      throw ConfigFile.credentials("a user and password in the endpoint of remote " + name, "");
    }
    if (parsed.isFile() && (endpoint != null || profile != null || region != null)) {
      throw new IllegalArgumentException("Invalid remote " + name + ": " + url + " is a local folder, which takes"
          + " no endpoint, profile or region (must be an s3:// URL to use them)");
    }
    requireNotBlank(name, "profile", profile);
    requireNotBlank(name, "region", region);
  }

  /** Whether {@code text} has the form of a remote name, rather than of a URL or path. */
  public static boolean isName(String text) {
    return NAME.matcher(text).matches();
  }

  static void requireValidName(String name) {
    if (name == null || !isName(name)) {
      throw new IllegalArgumentException("Invalid remote name: " + name + " (must be 1 to 64 letters, digits, '.',"
          + " '_' or '-', starting with a letter or digit)");
    }
  }

  private static void requireNotBlank(String name, String what, String value) {
    if (value != null && (value.isBlank() || !value.strip().equals(value))) {
      throw new IllegalArgumentException("Invalid " + what + " of remote " + name + ": '" + value
          + "' (must not be empty or start or end with a space)");
    }
  }
}
