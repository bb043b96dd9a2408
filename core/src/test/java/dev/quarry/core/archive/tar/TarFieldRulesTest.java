package dev.quarry.core.archive.tar;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.Shards;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.TestTools;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Header fields Python's tarfile (so WebDataset) refuses are refused too, naming the shard and the member, so no
 * raw copy of them reaches an output nobody can read; and inputs built to break the reader (endless empty gzip
 * members, sizes near 2^63) end in such an error, not a stack overflow or an arithmetic one.
 */
class TarFieldRulesTest {
  @TempDir Path temp;

  @ParameterizedTest
  @CsvSource({"100, mode", "108, uid", "116, gid", "136, mtime", "329, devmajor", "337, devminor"})
  void refusesANumericFieldThatPythonsTarfileRefuses(int offset, String field) throws Exception {
    byte[] tar = Shards.write(ShardFormat.TAR, Shards.records(List.of("only"), 100));
    byte[] bad = Shards.withHeaderField(tar, offset, "0000X44\0".getBytes(US_ASCII));
    Files.write(temp.resolve("bad.tar"), bad);
    CommandResult python = CommandResult.run(temp, List.of(TestTools.python().toString(), "-c",
        "import tarfile; tarfile.open('bad.tar').getmembers()"));
    assertThat(python.exitCode()).as("Python's tarfile refuses it").isNotZero();

    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, bad))
        .isInstanceOf(ArchiveException.class)
        .hasMessage("Cannot read member only.cls of shard test.tar: invalid tar header at offset 0: its " + field
            + " field holds a non-octal character (the shard is corrupt)");
  }

  @Test
  void refusesAPaxPathThatIsNotUtf8() throws Exception {
    CommandResult.check(temp, TestTools.python().toString(), "-c", """
        import io, tarfile
        with tarfile.open('bad.tar', 'w', format=tarfile.PAX_FORMAT, encoding='utf-8',
                          errors='surrogateescape') as t:
            info = tarfile.TarInfo('caf\\udce9.jpg'); info.size = 4
            t.addfile(info, io.BytesIO(b'data'))
        """);
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, temp.resolve("bad.tar")))
        .isInstanceOf(ArchiveException.class)
        .hasMessage("Cannot read member 0x636166e92e6a7067 of shard bad.tar: its name is not valid UTF-8 (rename it"
            + " in the source archive)");
  }

  @Test
  void readsAGzipOfManyEmptyMembersWithoutRecursion() throws Exception {
    ByteArrayOutputStream empty = new ByteArrayOutputStream();
    new GZIPOutputStream(empty).close();
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    for (int i = 0; i < 50_000; i++) {
      stream.writeBytes(empty.toByteArray());
    }
    stream.writeBytes(Shards.write(ShardFormat.TAR_GZ, Shards.records(List.of("a", "b"), 100)));
    assertThat(Shards.read(ShardFormat.TAR_GZ, stream.toByteArray())).containsOnlyKeys("a.cls", "a.jpg", "b.cls",
        "b.jpg");
  }

  @Test
  void refusesASizeNear2To63NamingTheMember() throws Exception {
    byte[] tar = Shards.write(ShardFormat.TAR, Shards.records(List.of("only"), 100));
    byte[] size = new byte[12];
    size[0] = (byte) 0x80; // GNU base-256
    long huge = Long.MAX_VALUE - 100;
    for (int i = 0; i < 8; i++) {
      size[4 + i] = (byte) (huge >>> (56 - 8 * i));
    }
    byte[] bad = Shards.withHeaderField(tar, 124, size);
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, bad))
        .isInstanceOf(ArchiveException.class)
        .hasMessage("Cannot read member only.cls of shard test.tar: its size " + huge + " bytes is more than any"
            + " shard may hold (1.0 TiB)");
  }
}
