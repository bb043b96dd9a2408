package dev.quarry.core.sync.local;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What lstat says about a path: its type, permission bits, and the (inode, mtime, size) that tell whether a file
 * changed since it was hashed.
 */
public record FileIdentity(int typeBits, int permissions, long inode, long mtimeNanos, long size) {
  private static final int TYPE_MASK = 0170000;
  private static final int REGULAR = 0100000;
  private static final int DIRECTORY = 0040000;
  private static final int SYMLINK = 0120000;

  public static FileIdentity of(Path path) throws IOException {
    Map<String, Object> attributes =
        Files.readAttributes(path, "unix:mode,ino,size,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
    int mode = (Integer) attributes.get("mode");
    return new FileIdentity(mode & TYPE_MASK, mode & 07777, (Long) attributes.get("ino"),
        ((FileTime) attributes.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS), (Long) attributes.get("size"));
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
