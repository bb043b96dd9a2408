package dev.quarry.core.archive;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A member of a streaming reader. Its data can be read once, and only until the reader moves on; moving on calls
 * {@link #pass()}, which reads past whatever was left unread (verifying it, where the format can).
 */
public abstract class StreamMember implements ArchiveMember {
  private final String shard;
  private boolean opened;
  private boolean passed;

  protected StreamMember(String shard) {
    this.shard = shard;
  }

  /** No raw range: only tar members, which override this, have one. */
  @Override
  public RawRange raw() {
    return null;
  }

  /** Marks the data as taken; refuses a second time, or after the reader moved on. */
  protected final void open() {
    if (opened || passed) {
      throw new IllegalStateException("Member " + name() + " of " + shard + " can be read only once, before next()");
    }
    opened = true;
  }

  /** Refuses a member whose data is too large to read whole. */
  protected final void requireFitsInMemory(ArchiveLimits limits) throws ArchiveException {
    if (size() > limits.maxMemberBytes()) {
      throw ArchiveException.tooLargeForMemory(shard, name(), size(), limits);
    }
  }

  /** The reader moves on: reads past what is left of this member's data. */
  public final void pass() throws IOException {
    passed = true;
    skipRest();
  }

  /** Reads past what is left of the data. */
  protected abstract void skipRest() throws IOException;

  @Override
  public String toString() {
    return name() + " (" + size() + " bytes)";
  }

  /** A member whose data is already in memory. */
  public static StreamMember held(String shard, String name, byte[] data) {
    return new Held(shard, name, data);
  }

  private static final class Held extends StreamMember {
    private final String name;
    private final long size;
    private byte[] data;

    Held(String shard, String name, byte[] data) {
      super(shard);
      this.name = name;
      this.size = data.length;
      this.data = data;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public long size() {
      return size;
    }

    @Override
    public InputStream data() {
      return new ByteArrayInputStream(readData());
    }

    @Override
    public byte[] readData() {
      open();
      byte[] bytes = data;
      data = null; // handed over: let it go as soon as the caller does
      return bytes;
    }

    @Override
    protected void skipRest() {
      data = null;
    }
  }
}
