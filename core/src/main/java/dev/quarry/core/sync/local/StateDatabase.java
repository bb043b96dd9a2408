package dev.quarry.core.sync.local;

import dev.quarry.core.sqlite.Sqlite;
import dev.quarry.core.sync.cas.Digest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The local state database: for each file path, the (inode, mtime, size) it had when it was hashed and the digest it
 * had then. A file whose identity is unchanged is never read again. Each row also says whether that content is
 * synced: written by a pull, or part of a version pushed since it was hashed; a pull replaces a local file only if
 * its content is the synced one (else it is a local edit). A row may also hold the content's MD5, the name DVC gives
 * it, for status and pull against a DVC remote: hashed in the same read as the SHA-256, and forgotten with the row.
 * One SQLite file, one writer at a time.
 */
public final class StateDatabase implements AutoCloseable {
  /**
   * What a file looked like when hashed, whether that content came from or went to a remote, and its MD5 when known
   * (null otherwise). Recording a row without an MD5 keeps the one recorded for the same identity and digest.
   */
  public record FileState(long inode, long mtimeNanos, long size, Digest digest, boolean synced, String md5) {
    public FileState(long inode, long mtimeNanos, long size, Digest digest, boolean synced) {
      this(inode, mtimeNanos, size, digest, synced, null);
    }

    /** A state just hashed: not known to be synced. */
    public FileState(long inode, long mtimeNanos, long size, Digest digest) {
      this(inode, mtimeNanos, size, digest, false);
    }

    public boolean matches(FileIdentity identity) {
      return matches(identity.inode(), identity.mtimeNanos(), identity.size());
    }

    public boolean matches(long inode, long mtimeNanos, long size) {
      return this.inode == inode && this.mtimeNanos == mtimeNanos && this.size == size;
    }
  }

  /** {@code PRAGMA user_version}: 0 before folders were recorded, 2 since (docs/formats.md, "Local state"). */
  public static final int FORMAT_VERSION = 2;

  private final Connection connection;
  private final FileClock clock;

  private StateDatabase(Connection connection, FileClock clock) {
    this.connection = connection;
    this.clock = clock;
  }

  public static StateDatabase open(Path file) throws IOException {
    return open(file, new FileClock(file.toAbsolutePath().getParent()));
  }

  /** With a clock of the caller's: a test's, to tell when looking at files began. */
  static StateDatabase open(Path file, FileClock clock) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    try {
      Connection connection = Sqlite.connect(file);
      try (Statement statement = connection.createStatement()) {
        statement.execute("PRAGMA journal_mode=WAL");
        statement.execute("PRAGMA synchronous=NORMAL");
        statement.execute("CREATE TABLE IF NOT EXISTS file_state (path TEXT PRIMARY KEY, inode INTEGER NOT NULL,"
            + " mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,"
            + " synced INTEGER NOT NULL DEFAULT 0)");
        if (!hasColumn(statement, "synced")) {
          // A database from before local edits were told apart: what it recorded counts as synced once.
          statement.execute("ALTER TABLE file_state ADD COLUMN synced INTEGER NOT NULL DEFAULT 1");
        }
        if (!hasColumn(statement, "md5")) {
          statement.execute("ALTER TABLE file_state ADD COLUMN md5 TEXT");
        }
        // MD5s were once kept apart, never forgotten with their files: they are hashed again as needed.
        statement.execute("DROP TABLE IF EXISTS file_md5");
        // What each folder held when a scan last built its manifest (FolderListing). A database from before has
        // none: its first scan reads every file row, as scans did then, and records the folders.
        statement.execute("CREATE TABLE IF NOT EXISTS folder_state (path TEXT PRIMARY KEY, listing BLOB NOT NULL)");
        statement.execute("PRAGMA user_version = " + FORMAT_VERSION);
      }
      return new StateDatabase(connection, clock);
    } catch (SQLException e) {
      throw new IOException("Cannot open the state database " + file + ": " + e.getMessage()
          + " (delete it to start over; files will be hashed again)", e);
    }
  }

  private static boolean hasColumn(Statement statement, String name) throws SQLException {
    try (ResultSet columns = statement.executeQuery("PRAGMA table_info(file_state)")) {
      while (columns.next()) {
        if (columns.getString("name").equals(name)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Every recorded file under {@code root} (absolute paths), in one query. It reads the table in its own order
   * (NOT INDEXED) rather than through the path index: the database is the folder's, so nearly every row is under
   * {@code root}, and the index would cost a lookup of each row in the table (rows are written in the order files
   * were hashed, not by path): a status of a million files spent most of its load there.
   */
  public Map<String, FileState> load(Path root) throws IOException {
    String select = "SELECT path, inode, mtime_ns, size, sha256, synced, md5 FROM file_state NOT INDEXED";
    return loadUnder(root, select, rows -> {
      long size = rows.getLong(4);
      return new FileState(rows.getLong(2), rows.getLong(3), size, new Digest(rows.getString(5), size),
          rows.getInt(6) != 0, rows.getString(7));
    });
  }

  /** The rows of these paths (absolute) that exist: a lookup of each through the path index. */
  public synchronized Map<String, FileState> lookup(Collection<String> paths) throws IOException {
    Map<String, FileState> states = new HashMap<>();
    try (PreparedStatement query = connection.prepareStatement(
        "SELECT inode, mtime_ns, size, sha256, synced, md5 FROM file_state WHERE path = ?")) {
      for (String path : paths) {
        query.setString(1, path);
        try (ResultSet rows = query.executeQuery()) {
          if (rows.next()) {
            long size = rows.getLong(3);
            states.put(path, new FileState(rows.getLong(1), rows.getLong(2), size, new Digest(rows.getString(4),
                size), rows.getInt(5) != 0, rows.getString(6)));
          }
        }
      }
    } catch (SQLException e) {
      throw new IOException("Cannot read the state database: " + e.getMessage(), e);
    }
    return states;
  }

  /** The listing recorded for {@code root} and each folder under it, by absolute path ({@link FolderListing}). */
  public synchronized Map<String, byte[]> loadFolders(Path root) throws IOException {
    Map<String, byte[]> listings = new HashMap<>();
    try (PreparedStatement query = connection.prepareStatement(
        "SELECT path, listing FROM folder_state WHERE path = ? OR (path >= ? AND path < ?)")) {
      query.setString(1, root.toAbsolutePath().normalize().toString());
      String prefix = root.toAbsolutePath().normalize() + "/";
      query.setString(2, prefix);
      query.setString(3, prefix.substring(0, prefix.length() - 1) + "0");
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          listings.put(rows.getString(1), rows.getBytes(2));
        }
      }
    } catch (SQLException e) {
      throw new IOException("Cannot read the state database: " + e.getMessage(), e);
    }
    return listings;
  }

  /** Records what these folders (absolute paths) hold, in one transaction. */
  public synchronized void recordFolders(Map<String, byte[]> listings) throws IOException {
    if (listings.isEmpty()) {
      return;
    }
    inTransaction("INSERT OR REPLACE INTO folder_state (path, listing) VALUES (?, ?)", statement -> {
      for (var entry : listings.entrySet()) {
        statement.setString(1, entry.getKey());
        statement.setBytes(2, entry.getValue());
        statement.addBatch();
      }
    });
  }

  /** Forgets folders that no longer exist (their listings only). */
  public synchronized void forgetFolders(Collection<String> paths) throws IOException {
    if (paths.isEmpty()) {
      return;
    }
    inTransaction("DELETE FROM folder_state WHERE path = ?", statement -> {
      for (String path : paths) {
        statement.setString(1, path);
        statement.addBatch();
      }
    });
  }

  /** Forgets the file rows of everything under these folders (absolute paths), which no longer exist. */
  public synchronized void forgetFilesUnder(Collection<String> folders) throws IOException {
    if (folders.isEmpty()) {
      return;
    }
    inTransaction("DELETE FROM file_state WHERE path >= ? AND path < ?", statement -> {
      for (String folder : folders) {
        setUnder(statement, Path.of(folder));
        statement.addBatch();
      }
    });
  }

  private interface Row<T> {
    T read(ResultSet rows) throws SQLException;
  }

  /** The rows of {@code select} (whose first column is the path) for the paths under {@code root}. */
  private synchronized <T> Map<String, T> loadUnder(Path root, String select, Row<T> row) throws IOException {
    Map<String, T> states = new HashMap<>();
    try (PreparedStatement query = connection.prepareStatement(select + " WHERE path >= ? AND path < ?")) {
      setUnder(query, root);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          states.put(rows.getString(1), row.read(rows));
        }
      }
    } catch (SQLException e) {
      throw new IOException("Cannot read the state database: " + e.getMessage(), e);
    }
    return states;
  }

  /** Sets the first two parameters to the range of paths under {@code root}. */
  private static void setUnder(PreparedStatement statement, Path root) throws SQLException {
    String prefix = root.toAbsolutePath().normalize() + "/";
    statement.setString(1, prefix);
    statement.setString(2, prefix.substring(0, prefix.length() - 1) + "0"); // '0' is the character after '/'
  }

  /** The clock of the file system this database is on, which tells which rows to trust ({@link FileClock}). */
  public FileClock clock() {
    return clock;
  }

  /**
   * Records the files hashed or written in this run, in one transaction. A row whose mtime the file system's clock
   * has not passed once it is recorded is stored untrusted ({@link FileClock}): a write after this call within the
   * same tick would keep the file's (inode, mtime, size). Rows of files read rather than written come stamped already,
   * by a horizon taken before they were looked at.
   */
  public synchronized void record(Map<String, FileState> states) throws IOException {
    if (states.isEmpty()) {
      return;
    }
    long newest = states.values().stream().mapToLong(FileState::mtimeNanos).max().orElseThrow();
    // The rows of one call are of one folder's files (a scan's, a pull's, a cache's): any one tells its file system.
    FileClock.Horizon settled = clock.past(newest, Path.of(states.keySet().iterator().next()).getParent());
    inTransaction("INSERT INTO file_state (path, inode, mtime_ns, size, sha256, synced, md5)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET inode = excluded.inode,"
        + " mtime_ns = excluded.mtime_ns, size = excluded.size, sha256 = excluded.sha256, synced = excluded.synced,"
        + " md5 = CASE WHEN excluded.md5 IS NOT NULL THEN excluded.md5 WHEN inode = excluded.inode"
        + " AND mtime_ns = excluded.mtime_ns AND size = excluded.size AND sha256 = excluded.sha256 THEN md5 END",
        statement -> {
          for (var entry : states.entrySet()) {
            FileState state = entry.getValue();
            statement.setString(1, entry.getKey());
            statement.setLong(2, state.inode());
            statement.setLong(3, settled.mtimeToRecord(state.mtimeNanos()));
            statement.setLong(4, state.size());
            statement.setString(5, state.digest().hex());
            statement.setInt(6, state.synced() ? 1 : 0);
            statement.setString(7, state.md5());
            statement.addBatch();
          }
        });
  }

  /**
   * Marks every file recorded under {@code root} as synced: called once a version of the whole folder was pushed,
   * whose every file the push's scan had just recorded. One statement, touching only rows not yet synced.
   */
  public synchronized void markSynced(Path root) throws IOException {
    try (PreparedStatement update = connection.prepareStatement(
        "UPDATE file_state SET synced = 1 WHERE path >= ? AND path < ? AND synced = 0")) {
      setUnder(update, root);
      update.executeUpdate();
    } catch (SQLException e) {
      throw new IOException("Cannot write the state database: " + e.getMessage(), e);
    }
  }

  /** Forgets files that no longer exist, so the database does not grow forever. */
  public synchronized void forget(Collection<String> paths) throws IOException {
    if (paths.isEmpty()) {
      return;
    }
    inTransaction("DELETE FROM file_state WHERE path = ?", statement -> {
      for (String path : paths) {
        statement.setString(1, path);
        statement.addBatch();
      }
    });
  }

  private interface Batch {
    void fill(PreparedStatement statement) throws SQLException;
  }

  private void inTransaction(String sql, Batch batch) throws IOException {
    try {
      connection.setAutoCommit(false);
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        batch.fill(statement);
        statement.executeBatch();
        connection.commit();
      } catch (SQLException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new IOException("Cannot write the state database: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IOException("Cannot close the state database: " + e.getMessage(), e);
    }
  }
}
