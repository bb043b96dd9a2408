package dev.quarry.operator.jobs;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Names of the objects the operator creates for a resource. A Job's name becomes a label value on its pods, so it must
 * stay a DNS label of at most 63 characters: long names are cut and made unique again with a short hash.
 */
public final class ChildNames {
  private static final int MAX = 63;
  private static final int HASH = 8;

  private ChildNames() {}

  /** {@code <owner>-<suffix>}, shortened with a hash of the whole when longer than 63 characters. */
  public static String of(String owner, String suffix) {
    String full = owner + "-" + suffix;
    if (full.length() <= MAX) {
      return full;
    }
    String hash = hash(full);
    int keep = MAX - suffix.length() - HASH - 2;
    String head = owner.substring(0, Math.max(keep, 1)).replaceAll("[-.]+$", "");
    String name = head + "-" + hash + "-" + suffix;
    return name.length() <= MAX ? name : name.substring(0, MAX - HASH - 1) + "-" + hash;
  }

  /** The first 8 hex digits of the SHA-256 of {@code text}: stable across restarts and versions. */
  public static String hash(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, HASH);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash a name: SHA-256 is missing from this JVM", e);
    }
  }
}
