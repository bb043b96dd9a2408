package dev.quarry.core.sync.cas;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The address of a blob: the SHA-256 of its bytes and its length. The size is part of the digest, as in the Remote
 * Execution API: a right hash with a wrong size is a different (invalid) object.
 *
 * @param hex 64 lowercase hex characters
 * @param size the blob's length in bytes
 */
public record Digest(String hex, long size) implements Comparable<Digest> {
  private static final HexFormat HEX_FORMAT = HexFormat.of();

  /** 64 lowercase hex characters; a loop, not a regex, because scans build a digest per file. */
  public static boolean isDigestHex(String text) {
    return isHex(text);
  }

  private static boolean isHex(String text) {
    if (text == null || text.length() != 64) {
      return false;
    }
    for (int i = 0; i < 64; i++) {
      char c = text.charAt(i);
      if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
        return false;
      }
    }
    return true;
  }

  /** The empty blob: always present, never uploaded or downloaded. */
  public static final Digest EMPTY = of(new byte[0]);

  public Digest {
    if (!isHex(hex)) {
      throw new IllegalArgumentException("Invalid SHA-256 digest: " + hex + " (must be 64 lowercase hex characters)");
    }
    if (size < 0) {
      throw new IllegalArgumentException("Invalid blob size: " + size + " (must be at least 0)");
    }
  }

  public static Digest of(byte[] data) {
    return new Digest(HEX_FORMAT.formatHex(sha256().digest(data)), data.length);
  }

  /** A digest from a finished hasher that has consumed {@code size} bytes. */
  public static Digest of(MessageDigest finished, long size) {
    return new Digest(HEX_FORMAT.formatHex(finished.digest()), size);
  }

  /** The digest of a file's current content. */
  public static Digest ofFile(java.nio.file.Path path) throws java.io.IOException {
    MessageDigest sha256 = sha256();
    long length = 0;
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(path)) {
      byte[] buffer = new byte[256 << 10];
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        sha256.update(buffer, 0, read);
        length += read;
      }
    }
    return of(sha256, length);
  }

  /** A new SHA-256 hasher. */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash: this JVM has no SHA-256", e);
    }
  }

  /**
   * Parses {@code sha256:<hex>} as written by users and refs; the size is unknown there, so it is given separately.
   */
  public static String parseHex(String text) {
    String hex = text.startsWith("sha256:") ? text.substring("sha256:".length()) : text;
    if (!isHex(hex)) {
      throw new IllegalArgumentException("Invalid version digest: " + text + " (must be sha256: and 64 lowercase hex"
          + " characters)");
    }
    return hex;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** {@code sha256:<hex>}, the form users see. */
  public String text() {
    return "sha256:" + hex;
  }

  @Override
  public int compareTo(Digest other) {
    int byHex = hex.compareTo(other.hex);
    return byHex != 0 ? byHex : Long.compare(size, other.size);
  }

  @Override
  public String toString() {
    return text() + "/" + size;
  }
}
