package dev.quarry.core.sync.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.local.StateDatabase.FileState;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file's MD5 lives in its state row: kept while the file is as hashed, forgotten with the row or a new identity. */
class StateDatabaseTest {
  private static final Digest ALPHA = Digest.of("alpha".getBytes(StandardCharsets.UTF_8));
  private static final Digest BETA = Digest.of("betaa".getBytes(StandardCharsets.UTF_8));
  private static final String MD5 = "2c1743a391305fbf367df8e4f069f9f9";

  @TempDir Path temp;

  @Test
  void anMd5IsKeptForTheSameIdentityAndContentAndForgottenOtherwise() throws Exception {
    Path root = temp.resolve("data");
    String a = root.resolve("a").toString();
    String b = root.resolve("b").toString();
    try (StateDatabase state = StateDatabase.open(temp.resolve("state.db"))) {
      state.record(Map.of(a, new FileState(1, 10, 5, ALPHA, true, MD5), b, new FileState(2, 10, 5, ALPHA, true, MD5)));
      state.record(Map.of(a, new FileState(1, 10, 5, ALPHA, false))); // a scan of the same file: the md5 stays
      state.record(Map.of(b, new FileState(2, 11, 5, BETA, false))); // b changed: its md5 goes
      assertThat(state.load(root).get(a).md5()).isEqualTo(MD5);
      assertThat(state.load(root).get(a).synced()).isFalse();
      assertThat(state.load(root).get(b).md5()).isNull();

      state.forget(List.of(a));
      state.record(Map.of(a, new FileState(1, 10, 5, ALPHA, false))); // the same identity again, after the row went
      assertThat(state.load(root).get(a).md5()).isNull();
    }
  }

  @Test
  void aRowTheFileSystemsClockHasNotPassedIsRecordedUntrustedAndAPassedOneAsIs() throws Exception {
    // A pull records the files it wrote: trusted once the clock is past their time (it waits for that, a tick at
    // most), never while a write could still keep the same mtime.
    Path root = temp.resolve("data");
    long now = System.currentTimeMillis() * 1_000_000L;
    long later = now + 3_600_000_000_000L;
    try (StateDatabase state = StateDatabase.open(temp.resolve("state/state.db"))) {
      long start = System.nanoTime();
      state.record(Map.of(root.resolve("written").toString(), new FileState(1, now, 5, ALPHA, true),
          root.resolve("future").toString(), new FileState(2, later, 5, BETA, true)));
      assertThat(System.nanoTime() - start).as("a bounded wait").isLessThan(2_000_000_000L);
      Map<String, FileState> loaded = state.load(root);
      assertThat(loaded.get(root.resolve("written").toString()).matches(1, now, 5)).isTrue();
      FileState future = loaded.get(root.resolve("future").toString());
      assertThat(future.mtimeNanos()).isEqualTo(FileClock.Horizon.UNTRUSTED_MTIME);
      assertThat(future.matches(2, later, 5)).isFalse();
    }
    assertThat(temp.resolve("state")).isDirectoryNotContaining("glob:**/clock-*");
  }

  @Test
  void aLoadReadsTheRowsUnderItsFolderAndNoOther() throws Exception {
    Path root = temp.resolve("data");
    FileState state = new FileState(1, 10, 5, ALPHA, true, MD5);
    List<String> under = List.of(root + "/a", root + "/sub/b", root + "/\u00e9", root + "/0");
    List<String> beside = List.of(root.toString(), root + "0/x", root + "-b/x", root + ".old/x", temp + "/dat/a");
    try (StateDatabase database = StateDatabase.open(temp.resolve("state.db"))) {
      Map<String, FileState> rows = new java.util.HashMap<>();
      under.forEach(path -> rows.put(path, state));
      beside.forEach(path -> rows.put(path, new FileState(2, 20, 5, BETA, false)));
      database.record(rows);

      Map<String, FileState> loaded = database.load(root);

      assertThat(loaded).containsOnlyKeys(under);
      assertThat(loaded.values()).containsOnly(state);
    }
  }

  @Test
  void aDatabaseWithTheOldMd5TableIsMigrated() throws Exception {
    Path file = temp.resolve("state.db");
    try (var connection = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE file_state (path TEXT PRIMARY KEY, inode INTEGER NOT NULL, mtime_ns INTEGER NOT"
          + " NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL, synced INTEGER NOT NULL DEFAULT 0)");
      statement.execute("CREATE TABLE file_md5 (path TEXT PRIMARY KEY, inode INTEGER NOT NULL, mtime_ns INTEGER NOT"
          + " NULL, size INTEGER NOT NULL, md5 TEXT NOT NULL)");
      statement.execute("INSERT INTO file_state VALUES ('" + temp.resolve("data/a") + "', 1, 10, 5, '" + ALPHA.hex()
          + "', 1)");
    }
    try (StateDatabase state = StateDatabase.open(file)) {
      FileState a = state.load(temp.resolve("data")).get(temp.resolve("data/a").toString());
      assertThat(a.digest()).isEqualTo(ALPHA);
      assertThat(a.md5()).isNull();
    }
    try (var connection = DriverManager.getConnection("jdbc:sqlite:" + file);
        var tables = connection.createStatement().executeQuery(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'file_md5'")) {
      assertThat(tables.next()).isFalse();
    }
  }

  @Test
  void folderListingsAreReadForTheFolderAndUnderItAndNoOther() throws Exception {
    Path root = temp.resolve("data");
    List<String> under = List.of(root.toString(), root + "/sub", root + "/sub/deeper", root + "/\u00e9");
    List<String> beside = List.of(root + "0", root + "-b", root + ".old", temp + "/dat");
    try (StateDatabase database = StateDatabase.open(temp.resolve("state.db"))) {
      Map<String, byte[]> listings = new java.util.HashMap<>();
      under.forEach(path -> listings.put(path, path.getBytes(StandardCharsets.UTF_8)));
      beside.forEach(path -> listings.put(path, new byte[] {1}));
      database.recordFolders(listings);

      assertThat(database.loadFolders(root)).containsOnlyKeys(under);
      database.forgetFolders(List.of(root + "/sub"));
      assertThat(database.loadFolders(root)).doesNotContainKey(root + "/sub").containsKey(root + "/sub/deeper");
    }
  }
}
