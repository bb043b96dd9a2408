package dev.quarry.core.sync.cas;

import java.time.Instant;
import java.util.regex.Pattern;

/**
 * Where everything lives under a remote's prefix (docs/formats.md, "Remote layout"). File contents and manifests are
 * kept in separate key spaces so that gc can sweep manifests before blobs and status can size each space apart.
 */
public final class CasLayout {
  public static final String BLOBS = "blobs/";
  public static final String TREES = "trees/";
  private static final Pattern REF_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private final String prefix;

  /** {@code prefix} is the key of the remote's root; empty, or ending with '/' or not. */
  public CasLayout(String prefix) {
    this.prefix = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
  }

  public String prefix() {
    return prefix;
  }

  public String blobKey(Digest digest) {
    return keyIn(space(BLOBS), digest);
  }

  public String treeKey(Digest digest) {
    return keyIn(space(TREES), digest);
  }

  /** The key of a digest in a key space: the space, a fan-out folder of the first two hex digits, the hex digest. */
  public static String keyIn(String space, Digest digest) {
    return space + digest.hex().substring(0, 2) + "/" + digest.hex();
  }

  /** The key space of a kind of object: {@link #BLOBS} or {@link #TREES} under the prefix. */
  public String space(String kind) {
    return prefix + kind;
  }

  public String refKey(String name) {
    requireRefName(name);
    return prefix + "refs/" + name;
  }

  public String refsPrefix() {
    return prefix + "refs/";
  }

  /** Where every ref's log lives: {@code refs-log/<ref>/<entry>.json}. */
  public String refLogPrefix() {
    return prefix + "refs-log/";
  }

  public String refLogPrefix(String name) {
    requireRefName(name);
    return refLogPrefix() + name + "/";
  }

  /**
   * The key of a log entry: the time inverted (milliseconds to {@link Long#MAX_VALUE}, 19 digits) so that keys sort
   * newest first, and a random id so that concurrent writers never collide.
   */
  public String refLogKey(String name, Instant at, String random) {
    return refLogPrefix(name) + String.format("%019d", Long.MAX_VALUE - at.toEpochMilli()) + "-" + random + ".json";
  }

  public String leasesPrefix() {
    return prefix + "leases/";
  }

  public String leaseKey(String id) {
    return leasesPrefix() + id + ".json";
  }

  public String leaseTreesKey(String id) {
    return leasesPrefix() + id + ".trees.gz";
  }

  public String gcRunningPrefix() {
    return prefix + "gc/running/";
  }

  /** Rewritten by every gc that deleted something; local indexes of complete trees are valid for one value. */
  public String gcGenerationKey() {
    return prefix + "gc/generation";
  }

  /** The hex digest of a blob or tree key, or null for any other key. */
  public static String hexOf(String key) {
    int slash = key.lastIndexOf('/');
    String hex = key.substring(slash + 1);
    return hex.length() == 64 && slash >= 3 && key.startsWith(hex.substring(0, 2) + "/", slash - 2) ? hex : null;
  }

  public static void requireRefName(String name) {
    if (name == null || !REF_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("Invalid ref name: " + name
          + " (must be 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit)");
    }
  }
}
