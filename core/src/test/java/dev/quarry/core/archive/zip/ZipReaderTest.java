package dev.quarry.core.archive.zip;

import static dev.quarry.core.archive.zip.ZipShards.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;

class ZipReaderTest {
  private static final ArchiveLimits SMALL = new ArchiveLimits(1000, 1 << 20, 1000, 1L << 40);
  private static final String REFUSED = "Cannot read member a.txt of shard test.zip: ";

  @Test
  void readsWhatJavasZipOutputStreamWritesWithDataDescriptors() throws IOException {
    Map<String, byte[]> members = new LinkedHashMap<>();
    members.put("d/a.txt", "alpha ".repeat(500).getBytes());
    members.put("d/b.bin", new byte[0]);
    members.put("d/c.json", "{\"x\": 1}".getBytes());
    byte[] zip = javaZip(members);
    assertThat(zip[6] & 0x08).as("data descriptor").isEqualTo(0x08);

    assertThat(hex(ZipShards.read(zip))).containsExactlyEntriesOf(hex(members));
  }

  @Test
  void membersNotReadAreSkippedAndDataCanBeReadOnlyOnce() throws IOException {
    List<Record> records = ZipShards.records(List.of("a", "b", "c"), 2000);
    try (ZipReader reader = reader(ZipShards.write(records), ArchiveLimits.DEFAULT)) {
      ArchiveMember first = reader.next();
      assertThat(first.name()).isEqualTo("a.cls");
      assertThat(first.size()).isEqualTo("class of a".length());
      try (InputStream data = first.data()) {
        assertThat(data.read()).isEqualTo('c');
      }
      assertThatThrownBy(first::data).isInstanceOf(IllegalStateException.class)
          .hasMessage("Member a.cls of test.zip can be read only once, before next()");
      assertThat(reader.next().name()).isEqualTo("a.bin");
      ArchiveMember third = reader.next();
      assertThat(third.name()).isEqualTo("b.cls");
      assertThat(new String(third.readData(), StandardCharsets.UTF_8)).isEqualTo("class of b");
      assertThat(reader.next().name()).isEqualTo("b.bin");
      assertThat(reader.next().name()).isEqualTo("c.cls");
      ArchiveMember last = reader.next();
      assertThat(last.readData()).isEqualTo(records.get(2).members().get(1).data());
      assertThat(reader.next()).isNull();
      assertThat(reader.next()).isNull();
      assertThatThrownBy(last::data).isInstanceOf(IllegalStateException.class);
      assertThat(reader.directoriesSkipped()).isZero();
    }
  }

  @Test
  void refusesDataThatDoesNotMatchItsCrc() throws IOException {
    byte[] zip = storedZip("a.txt", "hello world");
    zip[30 + "a.txt".length()] ^= 1;

    assertThatThrownBy(() -> ZipShards.read(zip)).isInstanceOf(ArchiveException.class)
        .hasMessageStartingWith(REFUSED + "corrupt zip data: its CRC-32 is ")
        .hasMessageEndingWith(", not the 0d4a1185 its header declares");
  }

  @Test
  void refusesTruncatedZipsWhereverTheyEnd() throws IOException {
    byte[] zip = storedZip("a.txt", "hello world");
    int dataEnd = 30 + "a.txt".length() + "hello world".length();

    assertThatThrownBy(() -> ZipShards.read(Arrays.copyOf(zip, dataEnd - 3)))
        .hasMessage(REFUSED + "truncated: the stream ends inside the member's data");
    assertThatThrownBy(() -> ZipShards.read(Arrays.copyOf(zip, dataEnd)))
        .hasMessage("Cannot read shard test.zip: truncated: the stream ends before the zip's central directory "
            + "(after 1 entries)");
    assertThatThrownBy(() -> ZipShards.read(Arrays.copyOf(zip, zip.length - 5)))
        .isInstanceOf(ArchiveException.class).hasMessageStartingWith("Cannot read shard test.zip: ");
    assertThatThrownBy(() -> ZipShards.read(new byte[0]))
        .hasMessage("Cannot read shard test.zip: truncated: the stream ends before the zip's central directory "
            + "(after 0 entries)");
  }

  @Test
  void refusesEncryptedMembersAndUnsupportedMethodsByName() throws IOException {
    byte[] encrypted = storedZip("a.txt", "hello world");
    encrypted[6] |= 1;
    assertThatThrownBy(() -> ZipShards.read(encrypted))
        .hasMessage(REFUSED + "it is encrypted (Quarry reads only unencrypted members)");

    byte[] lzma = storedZip("a.txt", "hello world");
    lzma[8] = 14;
    assertThatThrownBy(() -> ZipShards.read(lzma))
        .hasMessage(REFUSED + "it is compressed with LZMA (method 14); Quarry reads only stored and deflated members");
    // Commons Compress would load its optional Zstandard library, which is not there.
    byte[] zstd = storedZip("a.txt", "hello world");
    zstd[8] = 93;
    assertThatThrownBy(() -> ZipShards.read(zstd))
        .hasMessage(REFUSED + "it is compressed with ZSTD (method 93); Quarry reads only stored and deflated members");
  }

  @Test
  void refusesUnsafeAndInvalidNames() throws IOException {
    assertThatThrownBy(() -> ZipShards.read(storedZip("../evil.txt", "x")))
        .hasMessage("Cannot read member ../evil.txt of shard test.zip: names must not contain '..' (it would escape "
            + "the dataset)");
    assertThatThrownBy(() -> ZipShards.read(storedZip("/etc/evil.txt", "x")))
        .hasMessage("Cannot read member /etc/evil.txt of shard test.zip: absolute names are not allowed (names must "
            + "be relative)");
    byte[] latin1 = storedZip("a.txt", "x");
    latin1[30] = (byte) 0xe9;
    assertThatThrownBy(() -> ZipShards.read(latin1))
        .hasMessage("Cannot read member 0xe92e747874 of shard test.zip: its name is not valid UTF-8 (rename it in the "
            + "source archive)");
    assertThat(ZipShards.read(storedZip("./a.txt", "x"))).containsOnlyKeys("a.txt");
  }

  @Test
  void passesOverTheRootDirectoryAndDropsLeadingDotSlash() throws IOException {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    entries.put("./", new byte[0]);
    entries.put("./d/", new byte[0]);
    entries.put("./d/a.txt", "x".getBytes());
    try (ZipReader reader = reader(javaZip(entries), ArchiveLimits.DEFAULT)) {
      assertThat(reader.next().name()).isEqualTo("d/a.txt");
      assertThat(reader.next()).isNull();
      assertThat(reader.directoriesSkipped()).isEqualTo(2);
    }
  }

  @Test
  void refusesSizesThatDisagreeWithTheHeader() throws IOException {
    byte[] longer = deflatedZip("a.txt", "hello hello hello hello");
    longer[22] = 5;
    assertThatThrownBy(() -> ZipShards.read(longer))
        .hasMessage(REFUSED + "corrupt zip data: it has more than the 5 bytes its header declares");
    byte[] shorter = deflatedZip("a.txt", "hello hello hello hello");
    shorter[22] = 40;
    assertThatThrownBy(() -> ZipShards.read(shorter))
        .hasMessage(REFUSED + "corrupt zip data: it has 23 bytes, not the 40 its header declares");
  }

  @Test
  void refusesACentralDirectoryThatNamesOtherEntries() throws IOException {
    byte[] zip = storedZip("a.txt", "hello world");
    int directory = zip.length - 22 - (46 + "a.txt".length());
    zip[directory + 46] = 'b';

    assertThatThrownBy(() -> ZipShards.read(zip))
        .hasMessage("Cannot read shard test.zip: its central directory names entry 0 'b.txt', but the stream holds "
            + "'a.txt' there (the zip is corrupt or inconsistent; rewrite it with zip)");
  }

  @Test
  void capsWhatIsReadWholeButStreamsLargerMembers() throws IOException {
    byte[] big = new byte[5000];
    Arrays.fill(big, (byte) 'x');
    byte[] zip = ZipShards.write(List.of(new Record("a", List.of(new Member("a.txt", big)))));
    try (ZipReader reader = reader(zip, SMALL)) {
      assertThatThrownBy(() -> reader.next().readData())
          .hasMessage(REFUSED + "its 5000 bytes exceed the 1000 bytes a member may have in memory");
    }
    try (ZipReader reader = reader(zip, SMALL)) {
      assertThat(reader.next().data().readAllBytes()).isEqualTo(big);
    }
    // Without sizes in its local header a member is read whole as soon as it is reached.
    assertThatThrownBy(() -> reader(javaZip(Map.of("a.txt", big)), SMALL).next())
        .hasMessage(REFUSED + "it has no size in its local header, so it is read whole into memory, and it has more "
            + "than the 1000 bytes a member may have in memory");
  }

  @Test
  void capsTheBytesAShardExpandsTo() throws IOException {
    byte[] zip = ZipShards.write(ZipShards.records(List.of("a", "b", "c"), 5000));
    ArchiveLimits limits = new ArchiveLimits(1 << 20, 1 << 20, 1000, 12_000);

    assertThatThrownBy(() -> ZipShards.read(zip, limits))
        .hasMessage("Cannot read shard test.zip: it expands to more than 12000 bytes (a decompression bomb, or raise "
            + "the limit)");
  }

  @Test
  void passesFailuresOfTheSourceThroughUnchanged() throws IOException {
    byte[] zip = ZipShards.write(ZipShards.records(List.of("a", "b", "c"), 5000));
    IOException failure = new IOException("Connection reset");
    InputStream failing = new FilterInputStream(new ByteArrayInputStream(zip)) {
      private int read;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (read > 6000) {
          throw failure;
        }
        int n = super.read(b, off, Math.min(len, 100));
        read += Math.max(n, 0);
        return n;
      }
    };
    assertThatThrownBy(() -> {
      try (ZipReader reader = new ZipReader(failing, "test.zip", ArchiveLimits.DEFAULT)) {
        for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
          member.readData();
        }
      }
    }).isSameAs(failure);
  }

  private static ZipReader reader(byte[] zip, ArchiveLimits limits) {
    return new ZipReader(new ByteArrayInputStream(zip), "test.zip", limits);
  }

  private static byte[] storedZip(String name, String text) throws IOException {
    return ZipShards.write(List.of(new Record(dev.quarry.core.archive.RecordKeys.of(name),
        List.of(new Member(name, text.getBytes(StandardCharsets.UTF_8))))), ZipWriter.Method.STORED);
  }

  private static byte[] deflatedZip(String name, String text) throws IOException {
    byte[] zip = ZipShards.write(List.of(new Record(dev.quarry.core.archive.RecordKeys.of(name),
        List.of(new Member(name, text.getBytes(StandardCharsets.UTF_8))))), ZipWriter.Method.DEFLATED);
    assertThat(zip[8]).as("deflated").isEqualTo((byte) 8);
    return zip;
  }

  /** A zip as java.util.zip writes it to a stream: deflated members with data descriptors. */
  private static byte[] javaZip(Map<String, byte[]> members) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (ZipOutputStream zip = new ZipOutputStream(out)) {
      for (Map.Entry<String, byte[]> member : members.entrySet()) {
        zip.putNextEntry(new ZipEntry(member.getKey()));
        zip.write(member.getValue());
        zip.closeEntry();
      }
    }
    return out.toByteArray();
  }
}
