package dev.quarry.core.archive;

import java.util.Objects;

/**
 * One file of a record, as it appears in an archive.
 *
 * @param name the member's full name in the archive, for example {@code train/sample-000001.jpg}
 * @param data the member's bytes
 */
public record Member(String name, byte[] data) {
  public Member {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(data, "data");
  }

  /** The part of the last path component after its first dot, for example {@code jpg} or {@code seg.png}. */
  public String suffix() {
    return suffixOf(name);
  }

  /** The suffix of a member named {@code name}: the part of its last path component after its first dot. */
  public static String suffixOf(String name) {
    String base = name.substring(name.lastIndexOf('/') + 1);
    int dot = base.indexOf('.');
    return dot < 0 ? "" : base.substring(dot + 1);
  }
}
