package dev.quarry.core.archive.tar;

import static dev.quarry.core.archive.Shards.fingerprints;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.Shards;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.TestTools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Tar archives made by GNU tar and Python's tarfile read right; ours read right in GNU tar, tarfile and WebDataset. */
class TarCompatibilityTest {
  private static final String LONG_DIR = "a-directory-name-that-is-quite-long/and-another-one-that-is-long-too/"
      + "and-a-third-level-to-pass-one-hundred";
  private static final String LONG_BASE = "sample-with-a-base-name-far-longer-than-the-one-hundred-bytes-of-ustar-"
      + "name-fields-000001";

  @TempDir Path temp;
  private Path source;
  private final Map<String, byte[]> files = new LinkedHashMap<>();

  @BeforeEach
  void sourceTree() throws Exception {
    source = Files.createDirectories(temp.resolve("src"));
    Random random = new Random(7);
    put("short.jpg", random, 3000);
    put("short.cls", random, 1);
    put("empty.txt", random, 0);
    put(LONG_DIR + "/x.jpg", random, 70_000);
    put("exactly512.bin", random, 512);
    Files.createDirectories(source.resolve("empty-dir"));
  }

  private void put(String name, Random random, int size) throws Exception {
    byte[] data = new byte[size];
    random.nextBytes(data);
    Path file = source.resolve(name);
    Files.createDirectories(file.getParent());
    Files.write(file, data);
    files.put(name, data);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gnu", "oldgnu", "pax", "ustar", "posix"})
  void readsGnuTarInEveryFormat(String format) throws Exception {
    if (!format.equals("ustar")) {
      put(LONG_DIR + "/" + LONG_BASE + ".jpg", new Random(8), 1234); // ustar cannot hold a 120-byte base name
      put("données/été-ü.jpg", new Random(9), 55);
    }
    Path archive = temp.resolve("gnu-" + format + ".tar");
    CommandResult.check(source, "tar", "--format=" + format, "--sort=name", "-cf", archive.toString(), ".");

    Map<String, byte[]> read = Shards.read(ShardFormat.TAR, archive);
    assertThat(fingerprints(read)).containsExactlyInAnyOrderEntriesOf(fingerprints(files));
  }

  @ParameterizedTest
  @ValueSource(strings = {"USTAR_FORMAT", "GNU_FORMAT", "PAX_FORMAT"})
  void readsPythonTarfileInEveryFormat(String format) throws Exception {
    Path archive = temp.resolve("py.tar");
    String longName = format.equals("USTAR_FORMAT") ? "" : "    add('" + LONG_DIR + "/" + LONG_BASE + ".cls', b'7')\n";
    CommandResult.check(temp, TestTools.python().toString(), "-c", """
        import io, tarfile
        with tarfile.open('py.tar', 'w', format=tarfile.%s) as t:
            def add(name, data, mtime=1700000000.25):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mtime = mtime
                t.addfile(info, io.BytesIO(data))
            add('a/sample-1.jpg', b'jpeg-bytes' * 100)
            add('a/sample-1.cls', b'3')
            add('%s/x.cls', b'long dir')
        %s""".formatted(format, LONG_DIR, longName).stripIndent());
    Map<String, byte[]> expected = new LinkedHashMap<>();
    expected.put("a/sample-1.jpg", "jpeg-bytes".repeat(100).getBytes(StandardCharsets.US_ASCII));
    expected.put("a/sample-1.cls", "3".getBytes(StandardCharsets.US_ASCII));
    expected.put(LONG_DIR + "/x.cls", "long dir".getBytes(StandardCharsets.US_ASCII));
    if (!longName.isEmpty()) {
      expected.put(LONG_DIR + "/" + LONG_BASE + ".cls", "7".getBytes(StandardCharsets.US_ASCII));
    }
    assertThat(fingerprints(Shards.read(ShardFormat.TAR, archive))).containsExactlyEntriesOf(fingerprints(expected));
  }

  @ParameterizedTest
  @EnumSource(value = ShardFormat.class, names = {"TAR", "TAR_GZ", "TAR_LZ4"})
  void ourOutputExtractsWithGnuTarByteForByte(ShardFormat format) throws Exception {
    List<Record> records = recordsWithHardNames();
    Path archive = temp.resolve("ours." + format.extension());
    Files.write(archive, Shards.write(format, records));
    Path out = Files.createDirectories(temp.resolve("extracted"));
    switch (format) {
      case TAR -> CommandResult.check(out, "tar", "-xf", archive.toString());
      case TAR_GZ -> {
        CommandResult.check(temp, "gzip", "-t", archive.toString());
        CommandResult.check(out, "tar", "-xzf", archive.toString());
      }
      default -> {
        CommandResult.check(temp, "lz4", "-t", archive.toString());
        CommandResult.check(temp, "lz4", "-d", "-f", archive.toString(), temp.resolve("ours.tar").toString());
        CommandResult.check(out, "tar", "-xf", temp.resolve("ours.tar").toString());
      }
    }
    for (Record record : records) {
      for (var member : record.members()) {
        assertThat(out.resolve(member.name())).as(member.name()).hasBinaryContent(member.data());
      }
    }
    String listing = CommandResult.check(temp, "tar", "-tvf",
        format == ShardFormat.TAR_LZ4 ? temp.resolve("ours.tar").toString() : archive.toString());
    assertThat(listing.lines()).allMatch(line -> line.startsWith("-r--r--r-- quarry/quarry"));
  }

  @Test
  void ourOutputReadsInPythonTarfileAndWebDataset() throws Exception {
    List<Record> records = recordsWithHardNames();
    Files.write(temp.resolve("ours.tar"), Shards.write(ShardFormat.TAR, records));
    String tarfileListing = CommandResult.check(temp, TestTools.python().toString(), "-c", """
        import hashlib, tarfile
        with tarfile.open('ours.tar') as t:
            for m in t.getmembers():
                print(m.name + '\\t' + hashlib.sha256(t.extractfile(m).read()).hexdigest())
        """);
    Map<String, String> fromTarfile = new LinkedHashMap<>();
    tarfileListing.lines().forEach(line -> fromTarfile.put(line.split("\t")[0], line.split("\t")[1]));
    assertThat(fromTarfile).containsExactlyEntriesOf(fingerprints(Shards.members(records)));

    String samples = CommandResult.check(temp, TestTools.python().toString(), "-c", """
        import hashlib, webdataset as wds
        for sample in wds.WebDataset('ours.tar', shardshuffle=False):
            parts = sorted(k for k in sample if not k.startswith('__'))
            print(sample['__key__'] + '\\t' + ','.join(p + '=' + hashlib.sha256(sample[p]).hexdigest() for p in parts))
        """);
    assertThat(samples.lines()).hasSize(records.size());
    for (int i = 0; i < records.size(); i++) {
      Record record = records.get(i);
      String expected = record.key() + "\t" + record.members().stream()
          .sorted(java.util.Comparator.comparing(m -> m.suffix()))
          .map(m -> m.suffix() + "=" + Shards.sha256(m.data()))
          .reduce((a, b) -> a + "," + b).orElseThrow();
      assertThat(samples.lines().toList().get(i)).isEqualTo(expected);
    }
  }

  @ParameterizedTest
  @EnumSource(value = ShardFormat.class, names = {"TAR", "TAR_GZ", "TAR_LZ4"})
  void sameRecordsGiveTheSameBytes(ShardFormat format) throws Exception {
    List<Record> records = recordsWithHardNames();
    assertThat(Shards.write(format, records)).isEqualTo(Shards.write(format, records));
  }

  @Test
  void readsGzipWithSeveralMembersAndLz4WithSeveralFrames() throws Exception {
    CommandResult.check(source, "tar", "--sort=name", "-cf", temp.resolve("a.tar").toString(), "short.jpg");
    CommandResult.check(source, "tar", "--sort=name", "-cf", temp.resolve("b.tar").toString(), "short.cls");
    // GNU tar reads two concatenated archives only with -i; ours stops at the first end-of-archive, as tar does.
    // So the test concatenates compressed pieces of ONE archive: the tar split in two halves.
    byte[] whole = Files.readAllBytes(temp.resolve("a.tar"));
    Files.write(temp.resolve("h1"), java.util.Arrays.copyOf(whole, 1024));
    Files.write(temp.resolve("h2"), java.util.Arrays.copyOfRange(whole, 1024, whole.length));
    CommandResult.check(temp, "gzip", "-k", "h1");
    CommandResult.check(temp, "gzip", "-k", "h2");
    CommandResult.check(temp, "lz4", "-q", "h1", "h1.lz4");
    CommandResult.check(temp, "lz4", "-q", "h2", "h2.lz4");
    Files.write(temp.resolve("multi.tar.gz"), concat(temp.resolve("h1.gz"), temp.resolve("h2.gz")));
    Files.write(temp.resolve("multi.tar.lz4"), concat(temp.resolve("h1.lz4"), temp.resolve("h2.lz4")));

    Map<String, String> expected = fingerprints(Map.of("short.jpg", files.get("short.jpg")));
    assertThat(fingerprints(Shards.read(ShardFormat.TAR_GZ, temp.resolve("multi.tar.gz")))).isEqualTo(expected);
    assertThat(fingerprints(Shards.read(ShardFormat.TAR_LZ4, temp.resolve("multi.tar.lz4")))).isEqualTo(expected);
  }

  @Test
  void readsArchivesCompressedByTheGzipAndLz4Commands() throws Exception {
    CommandResult.check(source, "tar", "--sort=name", "-cf", temp.resolve("t.tar").toString(), ".");
    CommandResult.check(temp, "gzip", "-k", "t.tar");
    CommandResult.check(temp, "lz4", "-q", "t.tar", "t.tar.lz4");
    assertThat(fingerprints(Shards.read(ShardFormat.TAR_GZ, temp.resolve("t.tar.gz"))))
        .containsExactlyInAnyOrderEntriesOf(fingerprints(files));
    assertThat(fingerprints(Shards.read(ShardFormat.TAR_LZ4, temp.resolve("t.tar.lz4"))))
        .containsExactlyInAnyOrderEntriesOf(fingerprints(files));
  }

  private static byte[] concat(Path a, Path b) throws Exception {
    byte[] first = Files.readAllBytes(a);
    byte[] second = Files.readAllBytes(b);
    byte[] both = java.util.Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }

  /** Names that exercise every header path: short, exactly 100 bytes, long (PAX), non-ASCII (PAX), nested. */
  static List<Record> recordsWithHardNames() {
    String hundred = "d/" + "n".repeat(94); // 96 bytes of key, + ".jpg" = exactly 100
    return List.of(
        Shards.records(List.of("sample-000001"), 2000).get(0),
        Shards.records(List.of(hundred), 1000).get(0),
        Shards.records(List.of(LONG_DIR + "/" + LONG_BASE), 511).get(0),
        Shards.records(List.of("données/été-ü"), 513).get(0),
        Shards.records(List.of("nested/dir/sample-000002"), 0).get(0));
  }
}
