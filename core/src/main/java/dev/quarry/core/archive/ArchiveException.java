package dev.quarry.core.archive;

import dev.quarry.core.text.Printable;
import java.io.IOException;

/**
 * A shard that cannot be read as its format says: malformed, truncated, unsafe, or beyond a limit. The message names
 * the shard and, where there is one, the member.
 */
public class ArchiveException extends IOException {
  private final String shard;

  public ArchiveException(String shard, String message) {
    super(message);
    this.shard = shard;
  }

  public ArchiveException(String shard, String message, Throwable cause) {
    super(message, cause);
    this.shard = shard;
  }

  /** "Cannot read shard S: reason" */
  public static ArchiveException of(String shard, String reason) {
    return new ArchiveException(shard, "Cannot read shard " + shard + ": " + reason);
  }

  /** "Cannot read shard S: reason", keeping what the parser threw as the cause. */
  public static ArchiveException of(String shard, String reason, Throwable cause) {
    return new ArchiveException(shard, "Cannot read shard " + shard + ": " + reason, cause);
  }

  /** "Cannot read member M of shard S: reason", keeping what the parser threw as the cause. */
  public static ArchiveException ofMember(String shard, String member, String reason, Throwable cause) {
    return new ArchiveException(shard, "Cannot read member " + Printable.of(member) + " of shard "
        + Printable.of(shard) + ": " + reason, cause);
  }

  /** "Cannot read member M of shard S: reason" */
  public static ArchiveException ofMember(String shard, String member, String reason) {
    return new ArchiveException(shard, "Cannot read member " + Printable.of(member) + " of shard "
        + Printable.of(shard) + ": " + reason);
  }

  /** A member whose data is larger than {@code limits} let one be read into memory. */
  public static ArchiveException tooLargeForMemory(String shard, String member, long size, ArchiveLimits limits) {
    return ofMember(shard, member, "its " + size + " bytes exceed the " + limits.maxMemberBytes()
        + " bytes a member may have in memory");
  }

  /** The shard's name as the reader was given it. */
  public String shard() {
    return shard;
  }
}
