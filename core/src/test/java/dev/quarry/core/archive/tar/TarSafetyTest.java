package dev.quarry.core.archive.tar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.ShardReaders;
import dev.quarry.core.archive.Shards;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.TestTools;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every unsafe or broken input has an explicit rule and an error naming the shard and the member. */
class TarSafetyTest {
  @TempDir Path temp;

  /** Makes bad.tar with Python's tarfile: one member {@code name} of the given tarfile type. */
  private Path pythonTar(String memberSetup) throws Exception {
    CommandResult.check(temp, TestTools.python().toString(), "-c", """
        import io, tarfile
        with tarfile.open('bad.tar', 'w', format=tarfile.GNU_FORMAT, encoding='latin-1') as t:
            ok = tarfile.TarInfo('fine.jpg'); ok.size = 3; t.addfile(ok, io.BytesIO(b'abc'))
            info = tarfile.TarInfo('x')
        %s
            t.addfile(info, io.BytesIO(b'data') if info.isreg() else None)
        """.formatted(memberSetup.indent(4)).stripIndent());
    return temp.resolve("bad.tar");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "info.name = '../escape.jpg'; info.size = 4 | Cannot read member ../escape.jpg of shard bad.tar: names must not"
          + " contain '..' (it would escape the dataset)",
      "info.name = 'a/../../escape.jpg'; info.size = 4 | Cannot read member a/../../escape.jpg of shard bad.tar:"
          + " names must not contain '..'",
      "info.name = 'a//b.jpg'; info.size = 4 | Cannot read member a//b.jpg of shard bad.tar: names must not have"
          + " empty or '.' components (write a/b, not a//b or a/./b)",
      "info.name = 'a/./b.jpg'; info.size = 4 | Cannot read member a/./b.jpg of shard bad.tar: names must not have"
          + " empty or '.' components",
      "info.name = '/etc/passwd'; info.size = 4 | Cannot read member /etc/passwd of shard bad.tar: absolute names are"
          + " not allowed (names must be relative)",
      "info.name = 'link.jpg'; info.type = tarfile.SYMTYPE; info.linkname = '/etc/shadow' | Cannot read member"
          + " link.jpg of shard bad.tar: it is a symbolic link (shards may hold only regular files and directories;"
          + " store the file itself instead)",
      "info.name = 'hard.jpg'; info.type = tarfile.LNKTYPE; info.linkname = 'fine.jpg' | Cannot read member"
          + " hard.jpg of shard bad.tar: it is a hard link",
      "info.name = 'dev/null'; info.type = tarfile.CHRTYPE; info.devmajor = 1; info.devminor = 3 | Cannot read"
          + " member dev/null of shard bad.tar: it is a device",
      "info.name = 'pipe'; info.type = tarfile.FIFOTYPE | Cannot read member pipe of shard bad.tar: it is a FIFO",
      "info.name = 'caf\\xe9.jpg'; info.size = 4 | Cannot read member 0x636166e92e6a7067 of shard bad.tar: its name"
          + " is not valid UTF-8 (rename it in the source archive)"})
  void refusesUnsafeMembersByName(String memberSetup, String message) throws Exception {
    Path archive = pythonTar(memberSetup);
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, archive))
        .isInstanceOf(ArchiveException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void aHostileMemberNameIsShownEscapedAndCutToSize() throws Exception {
    Path archive = pythonTar("info.name = '/' + '\\x1b[31m\\nquarry: forged' + 'a' * 100000; info.size = 4");
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, archive))
        .isInstanceOf(ArchiveException.class)
        .satisfies(e -> {
          assertThat(e.getMessage()).startsWith("Cannot read member /\\u001b[31m\\u000aquarry: forged" + "a".repeat(10))
              .contains("... (99831 more characters) of shard bad.tar: absolute names are not allowed")
              .doesNotContain("\n", "\u001b").hasSizeLessThan(400);
        });
    Path hex = pythonTar("info.name = '\\xe9' * 5000; info.size = 4");
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, hex))
        .satisfies(e -> assertThat(e.getMessage()).startsWith("Cannot read member 0xe9e9").hasSizeLessThan(400)
            .endsWith("of shard bad.tar: its name is not valid UTF-8 (rename it in the source archive)"));
  }

  @Test
  void refusesSparseFilesMadeByGnuTar() throws Exception {
    Path sparse = temp.resolve("sparse.bin");
    CommandResult.check(temp, "truncate", "-s", "10M", sparse.toString());
    Files.write(sparse, new byte[] {1}, java.nio.file.StandardOpenOption.APPEND);
    for (String format : List.of("gnu", "pax")) {
      Path archive = temp.resolve("sparse-" + format + ".tar");
      CommandResult.check(temp, "tar", "--format=" + format, "--sparse", "-cf", archive.toString(), "sparse.bin");
      assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, archive))
          .hasMessageStartingWith("Cannot read member sparse.bin of shard sparse-" + format + ".tar: it is a")
          .hasMessageContaining("sparse file");
    }
  }

  @Test
  void refusesAnOversizedExtendedHeader() throws Exception {
    CommandResult.check(temp, TestTools.python().toString(), "-c", """
        import io, tarfile
        with tarfile.open('big-header.tar', 'w', format=tarfile.PAX_FORMAT) as t:
            info = tarfile.TarInfo('x.jpg'); info.size = 1
            info.pax_headers = {'comment': 'z' * 2_000_000}
            t.addfile(info, io.BytesIO(b'1'))
        """);
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, temp.resolve("big-header.tar")))
        .hasMessageMatching("Cannot read shard big-header.tar: the extended header at offset 0 is \\d+ bytes, more"
            + " than the 1048576 allowed \\(the shard is corrupt or hostile\\)");
  }

  @Test
  void namesTheMemberWhoseDataIsTruncated() throws Exception {
    byte[] tar = Shards.write(ShardFormat.TAR, Shards.records(List.of("only"), 5000));
    byte[] cut = Arrays.copyOf(tar, 512 + 512 + 512 + 2000); // .cls header+data, .jpg header, part of its data
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, cut))
        .isInstanceOf(ArchiveException.class)
        .hasMessageStartingWith("Cannot read member only.jpg of shard test.tar: truncated: the stream ends at offset");
  }

  @Test
  void namesTheOffsetOfATruncatedHeader() throws Exception {
    byte[] tar = Shards.write(ShardFormat.TAR, Shards.records(List.of("only"), 100));
    byte[] cut = Arrays.copyOf(tar, 1024 + 100);
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, cut))
        .hasMessage("Cannot read shard test.tar: truncated: the stream ends inside the header block at offset 1024");
  }

  @Test
  void refusesABadChecksumAsCorrupt() throws Exception {
    byte[] tar = Shards.write(ShardFormat.TAR, Shards.records(List.of("only"), 100));
    tar[10] ^= 0x01;
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR, tar))
        .hasMessageMatching("Cannot read shard test.tar: invalid tar header at offset 0: checksum \\d+ does not match"
            + " \\d+ \\(the shard is corrupt or not a tar archive\\)");
  }

  @Test
  void corruptCompressedDataIsNamedAsSuch() throws Exception {
    byte[] gz = Shards.write(ShardFormat.TAR_GZ, Shards.records(List.of("a", "b"), 50_000));
    byte[] badGz = gz.clone();
    badGz[gz.length / 2] ^= 0x55;
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR_GZ, badGz))
        .isInstanceOf(ArchiveException.class).hasMessageStartingWith("Cannot read shard test.tar.gz: corrupt gzip data");
    byte[] lz4 = Shards.write(ShardFormat.TAR_LZ4, Shards.records(List.of("a", "b"), 50_000));
    byte[] badLz4 = lz4.clone();
    badLz4[lz4.length / 2] ^= 0x55;
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR_LZ4, badLz4))
        .isInstanceOf(ArchiveException.class).hasMessageStartingWith("Cannot read shard test.tar.lz4: corrupt lz4 data");
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR_GZ, "not gzip at all".getBytes()))
        .hasMessageStartingWith("Cannot read shard test.tar.gz: corrupt gzip data");
  }

  @Test
  void aFailingSourceIsNotReportedAsACorruptShard() throws Exception {
    byte[] gz = Shards.write(ShardFormat.TAR_GZ, Shards.records(List.of("a"), 100_000));
    InputStream failing = new InputStream() {
      private final InputStream data = new ByteArrayInputStream(gz, 0, gz.length / 2);

      @Override
      public int read() throws IOException {
        int b = data.read();
        if (b < 0) {
          throw new IOException("Connection reset by peer");
        }
        return b;
      }
    };
    assertThatThrownBy(() -> Shards.read(ShardFormat.TAR_GZ, failing, "remote.tar.gz"))
        .isNotInstanceOf(ArchiveException.class).hasMessage("Connection reset by peer");
  }

  @Test
  void capsTheUncompressedSizeOfOneShard() throws Exception {
    // Members each under the cap (a single larger one is refused by its header alone), together over it.
    List<dev.quarry.core.archive.Record> zeros = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      zeros.add(new dev.quarry.core.archive.Record("zeros" + i,
          List.of(new dev.quarry.core.archive.Member("zeros" + i + ".bin", new byte[400_000]))));
    }
    byte[] gz = Shards.write(ShardFormat.TAR_GZ, zeros);
    ArchiveLimits small = new ArchiveLimits(1 << 30, 1 << 20, 1000, 1_000_000);
    assertThatThrownBy(() -> {
      try (ShardReader reader = ShardReaders.open(ShardFormat.TAR_GZ, new ByteArrayInputStream(gz), "bomb.tar.gz",
          small)) {
        while (reader.next() != null) {
          // read through
        }
      }
    }).hasMessage("Cannot read shard bomb.tar.gz: it expands to more than 1000000 bytes (a decompression bomb, or"
        + " raise the limit)");
  }

  @Test
  void passesDirectoriesOverAndCountsThem() throws Exception {
    Path source = Files.createDirectories(temp.resolve("tree/a/b"));
    Files.writeString(source.resolve("x.txt"), "x");
    CommandResult.check(temp.resolve("tree"), "tar", "-cf", temp.resolve("dirs.tar").toString(), ".");
    try (ShardReader reader = ShardReaders.open(ShardFormat.TAR, Files.newInputStream(temp.resolve("dirs.tar")),
        "dirs.tar", ArchiveLimits.DEFAULT)) {
      assertThat(reader.next().name()).isEqualTo("a/b/x.txt");
      assertThat(reader.next()).isNull();
      assertThat(reader.directoriesSkipped()).isEqualTo(3);
    }
  }
}
