package dev.quarry.core.sync.local;

import dev.quarry.core.sync.local.StateDatabase.FileState;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The file system's clock, read off a file created in the state folder. A recorded (inode, mtime, size) tells a file
 * unchanged only if every later write gives it another mtime, and a write within the same tick of the clock that
 * stamped the file (a jiffy on Linux, 2 s on FAT) keeps it: the problem git calls racily clean. So a row is trusted
 * only when its mtime is older than a {@link Horizon} the clock had passed before the file was looked at (a scan) or
 * after it was written (a pull); a newer one is recorded as {@link Horizon#UNTRUSTED_MTIME}, which no lstat returns,
 * and the next look hashes that file again. Files on another file system than the state folder's may keep coarser
 * times than its files show (FAT: 2 s), so for them the horizon is set {@link #COARSEST_TICK_NANOS} earlier.
 */
public class FileClock {
  /**
   * How long a reading waits for the clock to pass a time (a tick: a jiffy, or less); past it, on a file system of
   * coarse times, the rows of that tick are recorded untrusted instead.
   */
  private static final long WAIT_NANOS_AT_MOST = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long PAUSE_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
  /** The coarsest times a file system keeps (FAT's 2 s), allowed for when files are not on the clock's. */
  static final long COARSEST_TICK_NANOS = TimeUnit.SECONDS.toNanos(2);

  /** This process, by its number and start: two processes sharing a state folder never name the same file. */
  private static final String PROCESS = ProcessHandle.current().pid() + "-" + Long.toHexString(System.nanoTime());
  private static final AtomicLong READINGS = new AtomicLong();

  private final Path folder;

  /** A clock read off files created (and deleted at once) in {@code folder}: a state folder. */
  public FileClock(Path folder) {
    this.folder = folder;
  }

  /**
   * The horizon for rows of files under {@code looked} about to be looked at (lstat, then read): the first reading of
   * the clock past the present one, so a file last written before this call is older than it, and one written later
   * is not.
   */
  public Horizon beforeLooking(Path looked) throws IOException {
    return past(now(), looked);
  }

  /**
   * The horizon for rows of files under {@code written} already written and lstat-ed, the newest stamped {@code
   * newestMtimeNanos}: a reading of the clock past it, when the clock gets there within a tick.
   */
  public Horizon past(long newestMtimeNanos, Path written) throws IOException {
    long deadline = System.nanoTime() + WAIT_NANOS_AT_MOST;
    long now = now();
    while (now <= newestMtimeNanos && System.nanoTime() < deadline) {
      LockSupport.parkNanos(PAUSE_NANOS);
      now = now();
    }
    return new Horizon(sameFileSystem(written) ? now : now - COARSEST_TICK_NANOS);
  }

  /**
   * The clock now: the mtime of a file just created. Named by process and count, not by Files.createTempFile, whose
   * first call sets up a SecureRandom (tens of milliseconds of a status).
   */
  private long now() throws IOException {
    try {
      Path file = null;
      while (file == null) {
        try {
          file = Files.createFile(folder.resolve("clock-" + PROCESS + "-" + READINGS.incrementAndGet() + ".tmp"));
        } catch (FileAlreadyExistsException e) {
          // there already (another process's of the same name, or a link): the next count
        }
      }
      try {
        return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).lastModifiedTime()
            .to(TimeUnit.NANOSECONDS);
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new IOException("Cannot read the file system's clock in the state folder " + folder + ": " + e
          + " (the state folder must be writable)", e);
    }
  }

  /** Whether {@code path} (or, if not there yet, the nearest folder above it) is on the state folder's file system. */
  private boolean sameFileSystem(Path path) {
    try {
      Path existing = path.toAbsolutePath();
      while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
        existing = existing.getParent();
      }
      return existing != null && Files.getAttribute(existing, "unix:dev", LinkOption.NOFOLLOW_LINKS)
          .equals(Files.getAttribute(folder, "unix:dev"));
    } catch (IOException | UnsupportedOperationException e) {
      return false; // not known: allow for coarse times
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
