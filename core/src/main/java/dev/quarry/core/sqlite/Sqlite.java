package dev.quarry.core.sqlite;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;
import org.sqlite.util.OSInfo;

/**
 * Connections to SQLite files, with the driver's native library loaded from the user's cache. By itself the driver
 * copies its library out of the jar into a new temporary file at every start and compares the copy with the jar's
 * byte by byte (about 60 ms of each command's start); here the library is copied once per driver version into
 * {@code $XDG_CACHE_HOME/quarry/native} (default {@code ~/.cache}) and loaded from there. Where that folder cannot be
 * written (a read-only home), or the library path is set already ({@code -Dorg.sqlite.lib.path}), the driver does
 * as it does.
 */
public final class Sqlite {
  private Sqlite() {}

  /** A connection to the database in {@code file}, created when missing. */
  public static Connection connect(Path file) throws SQLException {
    CachedLibrary.prepared();
    return DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
  }

  /** The folder the native library is cached in, or null where there is no home to put it. */
  static Path cacheFolder() {
    String cache = System.getenv("XDG_CACHE_HOME");
    if (cache == null || cache.isBlank()) {
      String home = System.getProperty("user.home");
      if (home == null || home.isBlank() || home.equals("?")) {
        return null;
      }
      cache = Path.of(home, ".cache").toString();
    }
    return Path.of(cache, "quarry", "native");
  }

  /**
   * Whether {@code path} is this process's user's own, a folder or a file of {@code size} bytes (-1: any), that no
   * other user may write, in a folder no other user may write: code loaded from a cache another user could write
   * (a shared {@code XDG_CACHE_HOME}, a home of /tmp) would run as this one. A truncated copy is taken again.
   */
  static boolean trusted(Path path, long size) throws IOException {
    for (Path checked : new Path[] {path, path.getParent()}) {
      if (!Files.exists(checked, LinkOption.NOFOLLOW_LINKS)) {
        return false;
      }
      int uid = (Integer) Files.getAttribute(checked, "unix:uid", LinkOption.NOFOLLOW_LINKS);
      int mode = (Integer) Files.getAttribute(checked, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      if (uid != OWN_UID || (mode & 0022) != 0) {
        return false;
      }
    }
    return size < 0 ? Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)
        : Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS) && Files.size(path) == size;
  }

  /** This process's user: the owner of its own /proc entry. */
  private static final int OWN_UID = ownUid();

  private static int ownUid() {
    try {
      return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | RuntimeException e) {
      return -1; // no such entry: nothing is trusted, and the driver copies its library itself
    }
  }

  /** Points the driver at the cached library once per JVM, before its first connection. */
  private static final class CachedLibrary {
    private static final boolean PREPARED = prepare();

    static boolean prepared() {
      return PREPARED;
    }

    private static boolean prepare() {
      Path folder = cacheFolder();
      if (System.getProperty("org.sqlite.lib.path") != null || folder == null) {
        return false;
      }
      String resource = LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
      // The version and platform name the library: a release's library for a platform never changes.
      String name = "sqlite-jdbc-" + SQLiteJDBCLoader.getVersion() + "-"
          + OSInfo.getNativeLibFolderPathForCurrentOS().replace('/', '-') + "-" + LibraryLoaderUtil.getNativeLibName();
      Path library = folder.resolve(name);
      try {
        java.net.URL packed = SQLiteJDBCLoader.class.getResource(resource);
        if (packed == null) {
          return false; // no library for this platform in the jar: the driver says so itself
        }
        long size = packed.openConnection().getContentLengthLong(); // the jar's directory says it, unread
        if (!trusted(library, size)) {
          Files.createDirectories(folder, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
              java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
          if (!trusted(folder, -1)) {
            return false;
          }
          try (InputStream in = packed.openStream()) {
            // Whole or not at all: another process may load it as soon as it has this name.
            Path partial = Files.createTempFile(folder, name, ".partial");
            try {
              Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
              Files.move(partial, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
              Files.deleteIfExists(partial);
            }
          }
          if (!trusted(library, size)) {
            return false;
          }
        }
      } catch (IOException | RuntimeException e) {
        return false; // a cache we cannot write only costs the driver's own copy
      }
      System.setProperty("org.sqlite.lib.path", folder.toString());
      System.setProperty("org.sqlite.lib.name", name);
      return true;
    }
  }
}
