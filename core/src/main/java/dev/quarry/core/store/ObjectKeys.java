package dev.quarry.core.store;

import java.io.IOException;

/** The rules every store applies to keys, prefixes, page sizes and ranges. */
final class ObjectKeys {
  static final int MAX_KEYS = 1000;

  private ObjectKeys() {}

  /** A key of one object: not empty, no leading '/', no ".." component. */
  static String checkKey(String key) {
    if (key == null || key.isEmpty() || !wellFormed(key)) {
      throw invalidKey(key);
    }
    return key;
  }

  /** A key or a prefix given in a URL: like {@link #checkKey(String)}, but may be empty. */
  static String checkLocationKey(String key) {
    if (!wellFormed(key)) {
      throw invalidKey(key);
    }
    return key;
  }

  static String checkPrefix(String prefix) {
    if (prefix == null || !wellFormed(prefix)) {
      throw new IllegalArgumentException("Invalid key prefix: " + prefix
          + " (must be '/'-separated, without a leading '/' or a '..' component)");
    }
    return prefix;
  }

  static IllegalArgumentException invalidKey(String key) {
    return new IllegalArgumentException("Invalid object key: " + key
        + " (must be '/'-separated and not empty, without a leading '/' or a '..' component)");
  }

  private static boolean wellFormed(String key) {
    if (key.startsWith("/")) {
      return false;
    }
    for (String component : key.split("/", -1)) {
      if (component.equals("..")) {
        return false;
      }
    }
    return true;
  }

  static void checkMaxKeys(int maxKeys) {
    if (maxKeys < 1 || maxKeys > MAX_KEYS) {
      throw new IllegalArgumentException("Invalid maxKeys: " + maxKeys + " (must be from 1 to " + MAX_KEYS + ")");
    }
  }

  /** The length of an object's start to read ({@link ObjectStore#getStart}): at least a byte (S3 has no empty range). */
  static void checkStartLength(int maxLength) {
    if (maxLength < 1) {
      throw new IllegalArgumentException("Invalid length: " + maxLength + " (must be at least 1)");
    }
  }

  static void checkRange(long offset, long length) {
    if (offset < 0 || length < 0 || length > Long.MAX_VALUE - offset) {
      throw new IllegalArgumentException("Invalid range: offset " + offset + ", length " + length
          + " (must be non-negative, with offset + length at most " + Long.MAX_VALUE + ")");
    }
  }

  /** The error for a range that does not lie within an object of {@code size} bytes. */
  static RangeBeyondEndException rangeBeyondEnd(String url, long offset, long length, long size) {
    return new RangeBeyondEndException("Cannot read " + url + " bytes [" + offset + ", " + (offset + length)
        + "): the object has only " + size + " bytes");
  }
}
