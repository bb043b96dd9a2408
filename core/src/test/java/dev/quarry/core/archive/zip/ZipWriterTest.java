package dev.quarry.core.archive.zip;

import static dev.quarry.core.archive.zip.ZipShards.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

class ZipWriterTest {
  private static final List<Record> RECORDS = ZipShards.records(List.of("a/x", "a/y", "b/été", "c"), 3000);

  @Test
  void sameRecordsGiveIdenticalBytesInEveryTimeZone() throws IOException {
    TimeZone original = TimeZone.getDefault();
    List<byte[]> zips = new ArrayList<>();
    try {
      for (String zone : List.of("UTC", "Pacific/Kiritimati", "America/Los_Angeles", "Asia/Kolkata", "UTC")) {
        TimeZone.setDefault(TimeZone.getTimeZone(zone));
        zips.add(ZipShards.write(RECORDS));
      }
    } finally {
      TimeZone.setDefault(original);
    }
    for (byte[] zip : zips) {
      assertThat(zip).isEqualTo(zips.getFirst());
    }
    byte[] zip = zips.getFirst();
    assertThat(u16(zip, 10)).as("DOS time 00:00:00").isZero();
    assertThat(u16(zip, 12)).as("DOS date 1980-01-01").isEqualTo(1 << 5 | 1);
    assertThat(u16(zip, 28)).as("no extra fields").isZero();
    assertThat(u16(zip, 6) & 0x08).as("no data descriptor").isZero();
    assertThat(u16(zip, 6) & 0x800).as("UTF-8 name flag").isEqualTo(0x800);
    assertThat(u16(zip, zip.length - 2)).as("no comment").isZero();
  }

  @Test
  void deflatesWhatShrinksAndStoresTheRestOrStoresAllWhenAsked() throws IOException {
    List<Record> records = List.of(new Record("t", List.of(
        new Member("t.txt", "text that repeats ".repeat(100).getBytes()),
        new Member("t.one", new byte[] {7}))));
    byte[] deflated = ZipShards.write(records, ZipWriter.Method.DEFLATED);
    byte[] stored = ZipShards.write(records, ZipWriter.Method.STORED);

    assertThat(methods(deflated)).containsExactly(8, 0);
    assertThat(methods(stored)).containsExactly(0, 0);
    assertThat(hex(ZipShards.read(stored))).isEqualTo(hex(ZipShards.read(deflated)))
        .isEqualTo(hex(ZipShards.members(records)));
  }

  @Test
  void countsRecordsAndTheBytesTheStreamHasReceived() throws IOException {
    CountedOutput out = new CountedOutput();
    ZipWriter writer = new ZipWriter(out);
    assertThat(writer.bytesWritten()).isZero();
    for (Record record : RECORDS) {
      writer.write(record);
      assertThat(writer.bytesWritten()).isEqualTo(out.bytes.size()).isPositive();
    }
    assertThat(writer.records()).isEqualTo(RECORDS.size());
    assertThat(out.flushes).as("the stream is not flushed per record").isZero();
    writer.close();
    assertThat(out.closed).isTrue();
    assertThat(writer.bytesWritten()).isEqualTo(out.bytes.size());
    assertThat(hex(ZipShards.read(out.bytes.toByteArray()))).isEqualTo(hex(ZipShards.members(RECORDS)));
  }

  /**
   * The writer's bytes are Commons Compress's for the same members (its writer was this one's before it; {@link
   * CommonsZipWriter}): every name and method, an empty shard, and past 65,534 entries, where the zip64 end records
   * come in. The writer holds the central directory's records as bytes, past 1 MiB in a temporary file, removed when
   * it closes; Commons Compress held an object of each entry (a shard of 240,000 records ran a create worker of the
   * least budget out of heap).
   */
  @Test
  void writesTheBytesCommonsCompressWritesForTheSameMembers() throws IOException {
    List<Record> many = new ArrayList<>();
    for (int i = 0; i < 70_000; i++) {
      String key = String.format("s/%06d", i);
      many.add(new Record(key, List.of(new Member(key + ".txt", Integer.toString(i).repeat(i % 7).getBytes()))));
    }
    for (List<Record> records : List.of(RECORDS, List.<Record>of(), many.subList(0, 65_534), many.subList(0, 65_535),
        many)) {
      for (ZipWriter.Method method : ZipWriter.Method.values()) {
        ByteArrayOutputStream commons = new ByteArrayOutputStream();
        try (CommonsZipWriter writer = new CommonsZipWriter(commons, method)) {
          for (Record record : records) {
            writer.write(record);
          }
        }
        assertThat(ZipShards.write(records, method)).as("%d records, %s", records.size(), method)
            .isEqualTo(commons.toByteArray());
      }
    }
  }

  /**
   * Past 4 GiB, a member's offset goes in a zip64 extra field of its central directory record, and the end records
   * are zip64 ones, as Commons Compress writes them: 4.3 GB of stored members hash the same from both writers.
   */
  @Test
  void pastFourGibibytesOffsetsGoInZip64ExtraFieldsAsCommonsCompressWritesThem() throws IOException {
    byte[] block = new byte[64 << 20];
    new java.util.Random(64).nextBytes(block);
    List<Record> records = new ArrayList<>();
    for (int i = 0; i < 66; i++) {
      records.add(new Record("big/" + i, List.of(new Member("big/" + i + ".bin", block))));
    }
    records.add(new Record("small", List.of(new Member("small.txt", "after 4 GiB".getBytes()))));
    java.security.MessageDigest ours = dev.quarry.core.sync.cas.Digest.sha256();
    try (ZipWriter writer = new ZipWriter(new java.security.DigestOutputStream(OutputStream.nullOutputStream(), ours),
        ZipWriter.Method.STORED)) {
      for (Record record : records) {
        writer.write(record);
      }
      assertThat(writer.bytesWritten()).isGreaterThan(0xFFFFFFFFL);
    }
    java.security.MessageDigest commons = dev.quarry.core.sync.cas.Digest.sha256();
    try (CommonsZipWriter writer = new CommonsZipWriter(new java.security.DigestOutputStream(
        OutputStream.nullOutputStream(), commons), ZipWriter.Method.STORED)) {
      for (Record record : records) {
        writer.write(record);
      }
    }
    assertThat(ours.digest()).isEqualTo(commons.digest());
  }

  /** Past 1 MiB, the central directory waits in a temporary file, which closing the writer removes. */
  @Test
  void aLargeCentralDirectoryWaitsInATemporaryFileThatClosingRemoves() throws IOException {
    java.util.Set<java.nio.file.Path> before = directoryFiles();
    ZipWriter writer = new ZipWriter(OutputStream.nullOutputStream(), ZipWriter.Method.STORED);
    for (int i = 0; i < 30_000; i++) {
      String key = String.format("s/%06d", i);
      writer.write(new Record(key, List.of(new Member(key + ".txt", new byte[0]))));
    }
    assertThat(directoryFiles()).as("temporary files while writing").hasSize(before.size() + 1);
    writer.close();
    assertThat(directoryFiles()).as("temporary files once closed").isEqualTo(before);
  }

  private static java.util.Set<java.nio.file.Path> directoryFiles() throws IOException {
    try (var listed = java.nio.file.Files.list(java.nio.file.Path.of(System.getProperty("java.io.tmpdir")))) {
      return listed.filter(path -> path.getFileName().toString().startsWith("quarry-zip-directory-"))
          .collect(java.util.stream.Collectors.toSet());
    }
  }

  @Test
  void anEmptyShardIsAValidEmptyZip() throws IOException {
    byte[] zip = ZipShards.write(List.of());
    assertThat(zip).hasSize(22);
    assertThat(ZipShards.read(zip)).isEmpty();
  }

  @Test
  void refusesANameThatWouldMakeADirectory() {
    assertThatThrownBy(() -> ZipShards.write(List.of(new Record("a/", List.of(new Member("a/", new byte[1]))))))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot write member a/ as zip: a name ending in '/' marks a directory");
  }

  /** A name longer than a zip's 16-bit length field is refused, naming its start, rather than cut. */
  @Test
  void refusesANameLongerThanAZipCanHold() {
    String key = "n".repeat(70_000);
    assertThatThrownBy(() -> ZipShards.write(List.of(new Record(key, List.of(new Member(key + ".txt",
        new byte[1]))))))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot write member " + "n".repeat(64) + "... as zip: its name is 70004 bytes, more than a"
            + " zip's 65,535");
  }

  /** The compression method of each local header, in order. */
  private static List<Integer> methods(byte[] zip) {
    List<Integer> methods = new ArrayList<>();
    int at = 0;
    while (u16(zip, at) == 0x4b50 && u16(zip, at + 2) == 0x0403) {
      methods.add(u16(zip, at + 8));
      long compressed = u16(zip, at + 18) | (long) u16(zip, at + 20) << 16;
      at += 30 + u16(zip, at + 26) + u16(zip, at + 28) + (int) compressed;
    }
    return methods;
  }

  private static int u16(byte[] bytes, int at) {
    return (bytes[at] & 0xff) | (bytes[at + 1] & 0xff) << 8;
  }

  private static final class CountedOutput extends OutputStream {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int flushes;
    boolean closed;

    @Override
    public void write(int b) {
      bytes.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      bytes.write(b, off, len);
    }

    @Override
    public void flush() {
      flushes++;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
