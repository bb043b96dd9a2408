package dev.quarry.core.archive.msgpack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class MsgpackWriterTest {
  private static final List<Record> RECORDS = List.of(
      new Record("a/x", List.of(new Member("a/x.jpg", new byte[1000]), new Member("a/x.cls", "1".getBytes()))),
      new Record("a/y", List.of(new Member("a/y.seg.png", new byte[20_000]))));

  @Test
  void writesTheKeyFirstThenMembersInOrderAndTheSameBytesEveryTime() throws IOException {
    byte[] shard = MsgpackShards.write(RECORDS);

    assertThat(MsgpackShards.write(RECORDS)).isEqualTo(shard);
    // fixmap of 3, fixstr "__key__", fixstr "a/x", fixstr "jpg", bin16 of 1000 bytes
    assertThat(java.util.HexFormat.of().formatHex(shard, 0, 20))
        .isEqualTo("83a75f5f6b65795f5fa3612f78a36a7067c503e8");
    assertThat(MsgpackShards.read(shard)).containsOnlyKeys("a/x.jpg", "a/x.cls", "a/y.seg.png");
  }

  @Test
  void countsRecordsAndBytesWithoutFlushingAndClosesTheStream() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int[] flushes = {0};
    boolean[] closed = {false};
    OutputStream out = new OutputStream() {
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
        flushes[0]++;
      }

      @Override
      public void close() {
        closed[0] = true;
      }
    };
    MsgpackWriter writer = new MsgpackWriter(out);
    for (Record record : RECORDS) {
      writer.write(record);
      assertThat(writer.bytesWritten()).isEqualTo(bytes.size());
    }
    assertThat(writer.records()).isEqualTo(2);
    assertThat(flushes[0]).isZero();
    writer.close();
    assertThat(closed[0]).isTrue();
    assertThat(bytes.toByteArray()).isEqualTo(MsgpackShards.write(RECORDS));
  }

  @Test
  void refusesMembersWhoseSuffixCannotBeAMapKey() {
    assertThatThrownBy(() -> MsgpackShards.write(List.of(new Record("a/x", List.of(new Member("a/x", new byte[1]))))))
        .isInstanceOf(IOException.class)
        .hasMessage("Cannot write record a/x as msgpack: member a/x has no suffix after its key");
    assertThatThrownBy(() -> MsgpackShards.write(List.of(new Record("a/x",
        List.of(new Member("a/x.jpg", new byte[1]), new Member("a/x.jpg", new byte[2]))))))
        .hasMessage("Cannot write record a/x as msgpack: members a/x.jpg and a/x.jpg have the same suffix");
    assertThatThrownBy(() -> MsgpackShards.write(List.of(new Record("a/x",
        List.of(new Member("a/x.__key__", new byte[1]))))))
        .hasMessage("Cannot write record a/x as msgpack: member a/x.__key__ has the suffix __key__, which holds the key");
  }
}
