package dev.quarry.core.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each case in a JVM of its own: a JVM loads the driver's native library once. */
class SqliteTest {
  @TempDir Path temp;

  @Test
  void theNativeLibraryIsCopiedIntoTheUsersCacheOnceAndLoadedFromThereNotFromATemporaryCopy() throws Exception {
    Path cache = temp.resolve("cache");
    Path tmp = Files.createDirectories(temp.resolve("tmp"));

    String first = connectInChild(cache.toString(), tmp, temp.resolve("one.db"));
    List<Path> cached;
    try (Stream<Path> files = Files.list(cache.resolve("quarry/native"))) {
      cached = files.toList();
    }
    assertThat(cached).hasSize(1);
    Path library = cached.get(0);
    assertThat(library.getFileName().toString()).startsWith("sqlite-jdbc-").endsWith(".so");
    assertThat(first).isEqualTo("path=" + cache.resolve("quarry/native") + " name=" + library.getFileName()
        + " answer=42\n");
    Object copied = Files.readAttributes(library, BasicFileAttributes.class).fileKey();

    String second = connectInChild(cache.toString(), tmp, temp.resolve("two.db"));

    assertThat(second).isEqualTo(first);
    assertThat(Files.readAttributes(library, BasicFileAttributes.class).fileKey()).as("not copied again")
        .isEqualTo(copied);
    try (Stream<Path> inTmp = Files.list(tmp)) {
      assertThat(inTmp).as("the driver's own copies").isEmpty();
    }
  }

  @Test
  void aCacheThatCannotBeWrittenLeavesTheDriverToItsOwnCopy() throws Exception {
    Path notAFolder = Files.writeString(temp.resolve("cache"), "a file where the cache folder would be");

    String output = connectInChild(notAFolder.toString(), Files.createDirectories(temp.resolve("tmp")),
        temp.resolve("one.db"));

    assertThat(output).isEqualTo("path=null name=null answer=42\n");
  }

  /**
   * A cached library another user could have written (group- or world-writable, in such a folder) or a truncated one
   * is not loaded: the file is taken again from the jar, or, in a folder others may write, the driver copies its own.
   * Loading whatever lay at that name would run another user's code as this one.
   */
  @Test
  void aCachedLibraryOthersCouldWriteOrATruncatedOneIsNotLoaded() throws Exception {
    Path cache = temp.resolve("cache");
    Path tmp = Files.createDirectories(temp.resolve("tmp"));
    String first = connectInChild(cache.toString(), tmp, temp.resolve("one.db"));
    Path folder = cache.resolve("quarry/native");
    Path library;
    try (Stream<Path> files = Files.list(folder)) {
      library = files.findFirst().orElseThrow();
    }
    long size = Files.size(library);

    Files.setPosixFilePermissions(library, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-r--"));
    Object writable = Files.readAttributes(library, BasicFileAttributes.class).fileKey();
    assertThat(connectInChild(cache.toString(), tmp, temp.resolve("two.db"))).isEqualTo(first);
    assertThat(Files.readAttributes(library, BasicFileAttributes.class).fileKey()).as("taken again")
        .isNotEqualTo(writable);
    assertThat(Files.getPosixFilePermissions(library)).doesNotContain(
        java.nio.file.attribute.PosixFilePermission.GROUP_WRITE, java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE);

    Files.write(library, new byte[100]);
    assertThat(connectInChild(cache.toString(), tmp, temp.resolve("three.db"))).isEqualTo(first);
    assertThat(Files.size(library)).as("a truncated copy taken again").isEqualTo(size);

    Files.setPosixFilePermissions(folder, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThat(connectInChild(cache.toString(), tmp, temp.resolve("four.db")))
        .isEqualTo("path=null name=null answer=42\n");
  }

  /** Runs {@link Connects} with this {@code XDG_CACHE_HOME} and temporary folder; its output. */
  private static String connectInChild(String cacheHome, Path tmp, Path database) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder builder = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED",
        "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"), Connects.class.getName(),
        database.toString()));
    builder.environment().put("XDG_CACHE_HOME", cacheHome);
    Process child = builder.redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(child.waitFor()).as(output).isZero();
    return output;
  }

  /** Opens a database, asks it something, and prints where the driver was told to load its library from. */
  public static final class Connects {
    public static void main(String[] args) throws Exception {
      try (Connection connection = Sqlite.connect(Path.of(args[0]));
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT 6 * 7")) {
        rows.next();
        System.out.println("path=" + System.getProperty("org.sqlite.lib.path") + " name="
            + System.getProperty("org.sqlite.lib.name") + " answer=" + rows.getInt(1));
      }
    }
  }
}
