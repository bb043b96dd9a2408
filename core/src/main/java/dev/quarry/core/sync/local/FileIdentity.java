package dev.quarry.core.sync.local;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What lstat says about a path: its type, read/write/execute permission bits (0 to 0777: setuid, setgid and sticky
 * are not versioned, as a pull could not set them back), and the (inode, mtime, size) that tell whether a file
 * changed since it was hashed.
 */
public record FileIdentity(int typeBits, int permissions, long inode, long mtimeNanos, long size) {
  private static final int OTHER = 0;
  private static final int REGULAR = 0100000;
  private static final int DIRECTORY = 0040000;
  private static final int SYMLINK = 0120000;
  private static final PosixFilePermission[] BITS = PosixFilePermission.values(); // OWNER_READ (0400) first

  /**
   * One lstat. Through the POSIX view rather than the "unix:" one: a scan calls this for every file, and the unix
   * view's attribute map costs about as much as the system call.
   */
  public static FileIdentity of(Path path) throws IOException {
    return of(path, Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
  }

  /**
   * What an lstat of {@code path} returned ({@code attributes}: a walk's, read through its folder's descriptor);
   * {@code path} only for the rare JDK whose file key does not print the inode.
   */
  static FileIdentity of(Path path, PosixFileAttributes attributes) throws IOException {
    int type = attributes.isRegularFile() ? REGULAR : attributes.isDirectory() ? DIRECTORY
        : attributes.isSymbolicLink() ? SYMLINK : OTHER;
    int permissions = 0;
    for (PosixFilePermission permission : attributes.permissions()) {
      permissions |= 0400 >> permission.ordinal();
    }
    return new FileIdentity(type, permissions, inode(path, attributes),
        readable(attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS)), attributes.size());
  }

  /**
   * What an lstat returned as the kernel gives it: {@code st_mode}, {@code st_ino}, {@code st_mtim} and {@code
   * st_size}; the same identity {@link #of(Path, PosixFileAttributes)} makes of NIO's view of that lstat.
   */
  static FileIdentity ofStat(int mode, long inode, long mtimeSeconds, long mtimeNanos, long size) {
    int type = switch (mode & 0170000) {
      case REGULAR, DIRECTORY, SYMLINK -> mode & 0170000;
      default -> OTHER;
    };
    long nanos;
    try {
      nanos = Math.addExact(Math.multiplyExact(mtimeSeconds, 1_000_000_000L), mtimeNanos);
    } catch (ArithmeticException e) { // NIO's FileTime saturates there (past the year 2262)
      nanos = mtimeSeconds < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return new FileIdentity(type, mode & 0777, inode, readable(nanos), size);
  }

  /** An mtime as read from a file: never {@link FileClock.Horizon#UNTRUSTED_MTIME}, which only rows hold. */
  private static long readable(long mtimeNanos) {
    return Math.max(mtimeNanos, FileClock.Horizon.UNTRUSTED_MTIME + 1);
  }

  /** Permission bits (0 to 0777) as a set, for creating and changing files. */
  public static Set<PosixFilePermission> permissionSet(int mode) {
    Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
    for (int i = 0; i < BITS.length; i++) {
      if ((mode & (0400 >> i)) != 0) {
        permissions.add(BITS[i]);
      }
    }
    return permissions;
  }

  /**
   * The inode number from the file key, which Linux JDKs print as "(dev=803,ino=1234)"; from the unix view if a
   * JDK prints it otherwise.
   */
  private static long inode(Path path, PosixFileAttributes attributes) throws IOException {
    Object key = attributes.fileKey();
    if (key != null) {
      // Digits by hand: Long.parseLong's per-character checks were a tenth of a status's user time.
      String text = key.toString();
      int start = text.indexOf("ino=") + 4;
      int end = start;
      long inode = 0;
      while (start >= 4 && end < text.length() && end - start < 18 && text.charAt(end) >= '0'
          && text.charAt(end) <= '9') {
        inode = inode * 10 + (text.charAt(end) - '0');
        end++;
      }
      if (end > start && (end == text.length() || text.charAt(end) == ')')) {
        return inode;
      }
    }
    return (Long) Files.getAttribute(path, "unix:ino", LinkOption.NOFOLLOW_LINKS);
  }

  public boolean isRegularFile() {
    return typeBits == REGULAR;
  }

  public boolean isDirectory() {
    return typeBits == DIRECTORY;
  }

  public boolean isSymbolicLink() {
    return typeBits == SYMLINK;
  }

  /**
   * File names are bytes on Linux and Java decodes them with the locale's charset: anything but UTF-8 would turn
   * non-ASCII names into question marks, so versions would name files that do not exist.
   */
  public static void requireUtf8FileNames() {
    String encoding = System.getProperty("sun.jnu.encoding", Charset.defaultCharset().name());
    if (!Charset.forName(encoding).equals(java.nio.charset.StandardCharsets.UTF_8)) {
      throw new IllegalStateException("Cannot read file names: this JVM decodes them as " + encoding
          + ", not UTF-8 (run with LANG=C.UTF-8 or another UTF-8 locale)");
    }
  }
}
