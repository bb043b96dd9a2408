package dev.quarry.core.archive;

import dev.quarry.core.store.FileRangeStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A member to write whose data waits in a file, {@code size} bytes from {@code offset}, read from its first byte each
 * time it is opened: a record too large to hold is written from there ({@link ShardWriter#write(String, java.util.List)}).
 */
public record SpooledMember(String name, long size, Path file, long offset) {
  /** The member's data, from its first byte. */
  public InputStream open() throws IOException {
    // Fails if the file ends before the member does, so a writer need not count what it copies.
    return new FileRangeStream(FileChannel.open(file, StandardOpenOption.READ), file.toString(), offset,
        offset + size);
  }

  /** The part of the last path component after its first dot, as {@link Member#suffix()}. */
  public String suffix() {
    return Member.suffixOf(name);
  }
}
