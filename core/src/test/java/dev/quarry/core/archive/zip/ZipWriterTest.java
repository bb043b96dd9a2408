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
