package dev.quarry.core.sqlite;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
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
        if (!Files.isRegularFile(library)) {
          try (InputStream in = SQLiteJDBCLoader.class.getResourceAsStream(resource)) {
            if (in == null) {
              return false; // no library for this platform in the jar: the driver says so itself
            }
            Files.createDirectories(folder);
            // Whole or not at all: another process may load it as soon as it has this name.
            Path partial = Files.createTempFile(folder, name, ".partial");
            try {
              Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
              Files.move(partial, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
              Files.deleteIfExists(partial);
            }
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
