package dev.quarry.core.archive;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.commons.io.input.BoundedInputStream;

/**
 * A member to write whose data waits in a file, {@code size} bytes from {@code offset}, read from its first byte each
 * time it is opened: a record too large to hold is written from there ({@link ShardWriter#write(String, java.util.List)}).
 */
public record SpooledMember(String name, long size, Path file, long offset) {
  /** The member's data, from its first byte. */
  public InputStream open() throws IOException {
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ).position(offset);
    return BoundedInputStream.builder().setInputStream(Channels.newInputStream(channel)).setMaxCount(size).get();
  }

  /** The part of the last path component after its first dot, as {@link Member#suffix()}. */
  public String suffix() {
    return Member.suffixOf(name);
  }
}
