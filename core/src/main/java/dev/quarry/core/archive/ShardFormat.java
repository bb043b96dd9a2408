package dev.quarry.core.archive;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** Archive formats of shards, named by their file extension. */
public enum ShardFormat {
  TAR("tar"),
  TAR_GZ("tar.gz", "tgz"),
  TAR_LZ4("tar.lz4"),
  ZIP("zip"),
  MSGPACK("msgpack");

  private final String extension;
  private final String alias;

  ShardFormat(String extension) {
    this(extension, null);
  }

  ShardFormat(String extension, String alias) {
    this.extension = extension;
    this.alias = alias;
  }

  /** The file extension without a leading dot, for example {@code tar.gz}. */
  public String extension() {
    return extension;
  }

  /** Whether the format is a tar stream (possibly compressed), whose members have raw byte ranges. */
  public boolean isTar() {
    return this == TAR || this == TAR_GZ || this == TAR_LZ4;
  }

  /** The format whose extension is {@code extension} ({@code tgz} is {@code tar.gz}). */
  public static ShardFormat ofExtension(String extension) {
    for (ShardFormat format : values()) {
      if (format.extension.equals(extension) || extension.equals(format.alias)) {
        return format;
      }
    }
    throw new IllegalArgumentException("Invalid shard format: " + extension + " (must be one of " + names() + ")");
  }

  /** The format a shard's object or file name ends with, for example {@code train-0001.tar.lz4}. */
  public static ShardFormat ofName(String name) {
    return named(name).orElseThrow(() -> new IllegalArgumentException("Cannot infer the shard format of " + name
        + ": its name must end in ." + names().replace(", ", ", .") + ", or give the format explicitly"));
  }

  /**
   * The format {@code name} ends with, if it ends with one's extension in any ASCII case: only ASCII letters are
   * folded, as the CRD's rule folds them (CEL's {@code lowerAscii}), where Unicode folding took the Kelvin sign for a k.
   */
  public static Optional<ShardFormat> named(String name) {
    StringBuilder folded = new StringBuilder(name.length());
    name.chars().forEach(c -> folded.append((char) (c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c)));
    String lower = folded.toString();
    // Longest extensions first, so that x.tar.gz is not taken for something ending in .gz alone.
    for (ShardFormat format : new ShardFormat[] {TAR_GZ, TAR_LZ4, TAR, ZIP, MSGPACK}) {
      if (lower.endsWith("." + format.extension) || (format.alias != null && lower.endsWith("." + format.alias))) {
        return Optional.of(format);
      }
    }
    return Optional.empty();
  }

  private static String names() {
    return Arrays.stream(values()).map(ShardFormat::extension).collect(Collectors.joining(", "));
  }
}
