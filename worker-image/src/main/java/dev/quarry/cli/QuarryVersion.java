package dev.quarry.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The version and git commit the build wrote (worker-image/build-info.sh, into {@value #BUILD_INFO}), or
 * "development" when run from classes no build made.
 */
final class QuarryVersion implements IVersionProvider {
  static final String BUILD_INFO = "build.properties";

  @Override
  public String[] getVersion() {
    try (InputStream in = QuarryVersion.class.getResourceAsStream(BUILD_INFO)) {
      Properties build = new Properties();
      if (in != null) {
        build.load(in);
      }
      return new String[] {describe(build)};
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** "quarry 0.1.0 (commit 71dd9f9abcde)"; without a commit, says why. */
  static String describe(Properties build) {
    String version = build.getProperty("version");
    if (version == null) {
      return "quarry development";
    }
    String commit = build.getProperty("commit", "unknown");
    return "quarry " + version + " (commit " + (commit.equals("unknown") ? "unknown: not built from a git checkout"
        : commit) + ")";
  }
}
