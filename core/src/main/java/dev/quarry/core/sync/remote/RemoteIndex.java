package dev.quarry.core.sync.remote;

import dev.quarry.core.sqlite.Sqlite;
import dev.quarry.core.sync.cas.Digest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * The trees known complete on one remote: each is a manifest that was found or written there, which by the push
 * order proves its whole subtree present. Valid for one gc generation of the remote: when a gc has deleted anything
 * since, the whole index is dropped ({@link #validate}). One SQLite file per remote URL.
 */
public final class RemoteIndex implements AutoCloseable {
  private final Connection connection;
  private final Set<String> completeTrees = new HashSet<>();

  private RemoteIndex(Connection connection) {
    this.connection = connection;
  }

  /** The index of {@code remoteUrl} in {@code folder}, created when missing. */
  public static RemoteIndex open(Path folder, String remoteUrl) throws IOException {
    Files.createDirectories(folder);
    String name = HexFormat.of().formatHex(Digest.sha256().digest(remoteUrl.getBytes(StandardCharsets.UTF_8)))
        .substring(0, 24) + ".db";
    Path file = folder.resolve(name).toAbsolutePath();
    try {
      Connection connection = Sqlite.connect(file);
      try (Statement statement = connection.createStatement()) {
        statement.execute("PRAGMA journal_mode=WAL");
        statement.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
        statement.execute("CREATE TABLE IF NOT EXISTS complete_tree (sha256 TEXT PRIMARY KEY)");
      }
      RemoteIndex index = new RemoteIndex(connection);
      index.write("INSERT OR REPLACE INTO meta (key, value) VALUES ('remote', ?)", remoteUrl);
      index.load();
      return index;
    } catch (SQLException e) {
      throw new IOException("Cannot open the remote index " + file + ": " + e.getMessage()
          + " (delete it; it only saves requests)", e);
    }
  }

  /**
   * Keeps the index only if it was built under {@code generation}, the remote's current gc generation; otherwise
   * drops it and starts the new generation. Returns whether the index was kept.
   */
  public synchronized boolean validate(String generation) throws IOException {
    String stored = null;
    try (PreparedStatement query = connection.prepareStatement("SELECT value FROM meta WHERE key = 'generation'");
        ResultSet row = query.executeQuery()) {
      if (row.next()) {
        stored = row.getString(1);
      }
    } catch (SQLException e) {
      throw new IOException("Cannot read the remote index: " + e.getMessage(), e);
    }
    if (generation.equals(stored)) {
      return true;
    }
    clear();
    write("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)", generation);
    return false;
  }

  public synchronized boolean isComplete(Digest tree) {
    return completeTrees.contains(tree.hex());
  }

  public synchronized int size() {
    return completeTrees.size();
  }

  /** Records trees found or written complete on the remote. */
  public synchronized void addComplete(Collection<Digest> trees) throws IOException {
    var fresh = trees.stream().map(Digest::hex).filter(completeTrees::add).toList();
    if (fresh.isEmpty()) {
      return;
    }
    try {
      connection.setAutoCommit(false);
      try (PreparedStatement insert = connection.prepareStatement(
          "INSERT OR IGNORE INTO complete_tree (sha256) VALUES (?)")) {
        for (String hex : fresh) {
          insert.setString(1, hex);
          insert.addBatch();
        }
        insert.executeBatch();
        connection.commit();
      } finally {
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new IOException("Cannot write the remote index: " + e.getMessage(), e);
    }
  }

  /** Forgets everything, for when the remote was found to lack something the index promised. */
  public synchronized void clear() throws IOException {
    completeTrees.clear();
    write("DELETE FROM complete_tree", null);
  }

  private void load() throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT sha256 FROM complete_tree")) {
      while (rows.next()) {
        completeTrees.add(rows.getString(1));
      }
    }
  }

  private void write(String sql, String parameter) throws IOException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      if (parameter != null) {
        statement.setString(1, parameter);
      }
      statement.executeUpdate();
    } catch (SQLException e) {
      throw new IOException("Cannot write the remote index: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      connection.close();
    } catch (SQLException e) {
      throw new IOException("Cannot close the remote index: " + e.getMessage(), e);
    }
  }
}
