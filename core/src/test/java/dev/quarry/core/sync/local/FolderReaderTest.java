package dev.quarry.core.sync.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FolderReaderTest {
  @TempDir Path temp;

  @Test
  void theInternalReaderIsTakenWhereTheRuntimeOpensItsPackage() {
    // The build opens sun.nio.fs to the tests as the jar's manifest does to `java -jar`.
    assertThat(JdkInternalFolderReader.refusal()).isNull();
    assertThat(FolderReader.forThisRuntime()).isInstanceOf(JdkInternalFolderReader.class);
  }

  @Test
  void bothReadersGiveWhatAnLstatOfEachPathGivesForEveryKindOfEntry() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("kinds"));
    Files.writeString(dir.resolve("plain"), "plain");
    Files.createFile(dir.resolve("empty"));
    Path script = Files.writeString(dir.resolve("script"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x--x"));
    Path locked = Files.writeString(dir.resolve("locked"), "none may read");
    Files.createDirectories(dir.resolve("folder"));
    Files.setPosixFilePermissions(dir.resolve("folder"), PosixFilePermissions.fromString("rwx------"));
    Files.createSymbolicLink(dir.resolve("link"), Path.of("plain"));
    Files.createSymbolicLink(dir.resolve("dangling"), Path.of("nowhere/at/all"));
    Files.createLink(dir.resolve("hard-link"), dir.resolve("plain"));
    Process mkfifo = new ProcessBuilder("mkfifo", dir.resolve("pipe").toString()).start();
    assertThat(mkfifo.waitFor()).isZero();
    Files.writeString(dir.resolve("é ünïcode ✓"), "unicode");
    Files.setLastModifiedTime(Files.createFile(dir.resolve("nanos")),
        FileTime.from(Instant.parse("2024-02-29T12:34:56.123456789Z")));
    Files.setLastModifiedTime(Files.createFile(dir.resolve("whole-second")),
        FileTime.from(Instant.parse("2001-01-01T00:00:00Z")));
    // NIO sets no time before 1970 (it leaves 0): touch does.
    Process touch = new ProcessBuilder("touch", "-d", "1969-07-20 20:17:40.5 UTC", "before-1970")
        .directory(dir.toFile()).start();
    assertThat(touch.waitFor()).isZero();
    Files.createFile(dir.resolve("left-out"));
    Files.setPosixFilePermissions(locked, Set.of());

    FolderReader.Entries internal = internalReader().read(dir, Set.of("left-out"));
    FolderReader.Entries viaPublic = new PublicFolderReader().read(dir, Set.of("left-out"));

    assertThat(internal.names()).containsExactly(viaPublic.names());
    assertThat(internal.identities()).containsExactly(viaPublic.identities());
    assertThat(internal.names()).hasSize(13).doesNotContain("left-out");
    for (int i = 0; i < internal.names().length; i++) {
      Path path = internal.path(dir, i);
      assertThat(internal.identities()[i]).as(path.toString()).isEqualTo(FileIdentity.of(path));
      assertThat(viaPublic.path(dir, i)).isEqualTo(path);
    }
    FileIdentity nanos = identityOf(internal, "nanos");
    assertThat(nanos.mtimeNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(
        Instant.parse("2024-02-29T12:34:56Z").getEpochSecond()) + 123_456_789L);
    assertThat(identityOf(internal, "before-1970").mtimeNanos()).isEqualTo(
        TimeUnit.SECONDS.toNanos(Instant.parse("1969-07-20T20:17:40Z").getEpochSecond()) + 500_000_000L);
    assertThat(identityOf(internal, "hard-link").inode()).isEqualTo(identityOf(internal, "plain").inode());
    assertThat(identityOf(internal, "script").permissions()).isEqualTo(0751);
    assertThat(identityOf(internal, "locked").permissions()).isZero();
    assertThat(identityOf(internal, "folder").isDirectory()).isTrue();
    assertThat(identityOf(internal, "folder").permissions()).isEqualTo(0700);
    assertThat(identityOf(internal, "dangling").isSymbolicLink()).isTrue();
    FileIdentity pipe = identityOf(internal, "pipe");
    assertThat(pipe.isRegularFile() || pipe.isDirectory() || pipe.isSymbolicLink()).isFalse();
  }

  @Test
  void aFolderOfMoreEntriesThanAManifestHoldsIsReadOnAllCoresAlike() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("flat"));
    for (int i = 0; i < 6000; i++) {
      Path file = Files.writeString(dir.resolve(String.format("f%05d", i)), i % 7 == 0 ? "x".repeat(i) : "");
      if (i % 11 == 0) {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
      }
    }
    assertThat(FolderReader.inParallel(6000)).isTrue();

    FolderReader.Entries internal = internalReader().read(dir, Set.of());
    FolderReader.Entries viaPublic = new PublicFolderReader().read(dir, Set.of());

    assertThat(internal.names()).hasSize(6000).containsExactly(viaPublic.names());
    assertThat(internal.identities()).containsExactly(viaPublic.identities());
  }

  @Test
  void aFolderWithANameThatIsNotUtf8IsReadThePublicWayWithPathsFromItsBytes() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("latin1"));
    Files.writeString(dir.resolve("ascii"), "a");
    // Java cannot name such a file: the shell makes one whose name is the byte 0xE9 (é in Latin-1).
    Process touch = new ProcessBuilder("sh", "-c", "touch \"$(printf 'caf\\351')\"").directory(dir.toFile())
        .start();
    assertThat(touch.waitFor()).isZero();

    FolderReader.Entries internal = internalReader().read(dir, Set.of());

    assertThat(internal.names()).containsExactlyInAnyOrder("ascii", "caf\uFFFD");
    assertThat(internal.identities()).containsExactly(new PublicFolderReader().read(dir, Set.of()).identities());
    for (int i = 0; i < internal.names().length; i++) {
      assertThat(Files.exists(internal.path(dir, i), LinkOption.NOFOLLOW_LINKS)).as("the file listed").isTrue();
    }
  }

  @Test
  void aMissingFolderIsNioSError() {
    assertThatThrownBy(() -> internalReader().read(temp.resolve("nope"), Set.of()))
        .isInstanceOf(NoSuchFileException.class).hasMessageContaining("nope");
  }

  @Test
  void aRuntimeThatDoesNotOpenItsInternalsGetsThePublicReaderWithTheSameEntries() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("child"));
    Files.writeString(dir.resolve("file"), "file");
    Files.createSymbolicLink(dir.resolve("link"), Path.of("file"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        Reads.class.getName(), dir.toString())).redirectErrorStream(true).start();
    String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(child.waitFor()).as(output).isZero();

    assertThat(output).startsWith("PublicFolderReader refused: java.lang.IllegalAccessException")
        .contains("does not open sun.nio.fs").endsWith(describe(internalReader().read(dir, Set.of())) + "\n");
  }

  /** What a JVM started without {@code --add-opens} reads: the reader it took, why, and the entries. */
  public static final class Reads {
    public static void main(String[] args) throws IOException {
      FolderReader reader = FolderReader.forThisRuntime();
      System.out.println(reader.getClass().getSimpleName() + " refused: " + JdkInternalFolderReader.refusal());
      System.out.println(describe(reader.read(Path.of(args[0]), Set.of())));
    }
  }

  private static String describe(FolderReader.Entries entries) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < entries.names().length; i++) {
      lines.add(entries.names()[i] + " " + entries.identities()[i]);
    }
    return String.join("\n", lines);
  }

  private static JdkInternalFolderReader internalReader() {
    return JdkInternalFolderReader.available().orElseThrow();
  }

  private static FileIdentity identityOf(FolderReader.Entries entries, String name) {
    return entries.identities()[List.of(entries.names()).indexOf(name)];
  }
}
