package dev.quarry.core.sync.local;

import dev.quarry.core.sync.local.StateDatabase.FileState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The file system's clock, read off a file created in the state folder. A recorded (inode, mtime, size) tells a file
 * unchanged only if every later write gives it another mtime, and a write within the same tick of the clock that
 * stamped the file (a jiffy on Linux, 2 s on FAT) keeps it: the problem git calls racily clean. So a row is trusted
 * only when its mtime is older than a {@link Horizon} the clock had passed before the file was looked at (a scan) or
 * after it was written (a pull); a newer one is recorded as {@link Horizon#UNTRUSTED_MTIME}, which no lstat returns,
 * and the next look hashes that file again.
 */
public class FileClock {
  /** How long a reading waits for the clock to pass a time; past it, newer rows are recorded untrusted instead. */
  private static final long WAIT_NANOS_AT_MOST = TimeUnit.MILLISECONDS.toNanos(100);
  private static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

  private final Path folder;

  /** A clock read off files created (and deleted at once) in {@code folder}: a state folder. */
  public FileClock(Path folder) {
    this.folder = folder;
  }

  /**
   * The horizon for rows of files about to be looked at (lstat, then read): the first reading of the clock past the
   * present one, so a file last written before this call is older than it, and one written later is not.
   */
  public Horizon beforeLooking() throws IOException {
    return past(now());
  }

  /**
   * The horizon for rows of files already written and lstat-ed, the newest stamped {@code newestMtimeNanos}: a
   * reading of the clock past it, when the clock gets there within a moment (it does within a tick).
   */
  public Horizon past(long newestMtimeNanos) throws IOException {
    long deadline = System.nanoTime() + WAIT_NANOS_AT_MOST;
    long now = now();
    while (now <= newestMtimeNanos && System.nanoTime() < deadline) {
      LockSupport.parkNanos(PAUSE_NANOS);
      now = now();
    }
    return new Horizon(now);
  }

  /** The clock now: the mtime of a file just created. */
  private long now() throws IOException {
    Path file = Files.createTempFile(folder, "clock-", ".tmp");
    try {
      return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).lastModifiedTime()
          .to(TimeUnit.NANOSECONDS);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** A time of the file system's clock: rows of files stamped at it or later are recorded untrusted. */
  public record Horizon(long nanos) {
    /** The mtime of a row that must not be trusted; {@link FileIdentity} never reads it from a file. */
    public static final long UNTRUSTED_MTIME = Long.MIN_VALUE;

    public long mtimeToRecord(long mtimeNanos) {
      return mtimeNanos < nanos ? mtimeNanos : UNTRUSTED_MTIME;
    }

    public FileIdentity toRecord(FileIdentity identity) {
      long mtime = mtimeToRecord(identity.mtimeNanos());
      return mtime == identity.mtimeNanos() ? identity : new FileIdentity(identity.typeBits(),
          identity.permissions(), identity.inode(), mtime, identity.size());
    }

    public FileState toRecord(FileState state) {
      long mtime = mtimeToRecord(state.mtimeNanos());
      return mtime == state.mtimeNanos() ? state : new FileState(state.inode(), mtime, state.size(), state.digest(),
          state.synced(), state.md5());
    }
  }
}
