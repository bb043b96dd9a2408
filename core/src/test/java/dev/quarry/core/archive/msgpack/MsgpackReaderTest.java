package dev.quarry.core.archive.msgpack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

class MsgpackReaderTest {
  private static final String SHARD = "Cannot read shard test.msgpack: ";

  @Test
  void roundTripsRecordsThroughOurWriterAndReader() throws IOException {
    List<Record> records = List.of(
        new Record("a/x", List.of(new Member("a/x.jpg", new byte[3000]), new Member("a/x.cls", "3".getBytes()))),
        new Record("a/y", List.of(new Member("a/y.seg.png", "png".getBytes()))),
        new Record("z", List.of(new Member("z.json", "{}".getBytes()), new Member("z.txt", new byte[0]))));

    assertThat(MsgpackShards.read(MsgpackShards.write(records))).containsExactly(
        entry("a/x.jpg", "00".repeat(3000)), entry("a/x.cls", "33"), entry("a/y.seg.png", "706e67"),
        entry("z.json", "7b7d"), entry("z.txt", ""));
  }

  @Test
  void streamsMembersSkipsUnreadDataAndAllowsOneReadEach() throws IOException {
    byte[] shard = pack(p -> {
      record(p, "k", "a", bytes("alpha"), "b", bytes("beta"));
      record(p, "m", "c", bytes("gamma"));
    });
    try (MsgpackReader reader = reader(shard, ArchiveLimits.DEFAULT)) {
      ArchiveMember a = reader.next();
      assertThat(a.name()).isEqualTo("k.a");
      assertThat(a.size()).isEqualTo(5);
      assertThat(a.raw()).isNull();
      try (InputStream data = a.data()) {
        assertThat(data.read()).isEqualTo('a');
      }
      assertThatThrownBy(a::readData).isInstanceOf(IllegalStateException.class)
          .hasMessage("Member k.a of test.msgpack can be read only once, before next()");
      assertThat(reader.next().name()).isEqualTo("k.b");
      assertThat(new String(reader.next().readData(), StandardCharsets.UTF_8)).isEqualTo("gamma");
      assertThat(reader.next()).isNull();
      assertThat(reader.directoriesSkipped()).isZero();
    }
  }

  @Test
  void refusesValuesThatAreNotBytesNamingTheMember() throws IOException {
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> {
      p.packMapHeader(2).packString("__key__").packString("a/x").packString("cls").packInt(3);
    }))).isInstanceOf(ArchiveException.class).hasMessage("Cannot read member a/x.cls of shard test.msgpack: its value "
        + "is an integer, not binary or a string (members hold bytes)");
    // Before the key the member is named once the key is read.
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> {
      p.packMapHeader(2).packString("meta").packMapHeader(1).packString("x").packInt(1);
      p.packString("__key__").packString("a/x");
    }))).hasMessage("Cannot read member a/x.meta of shard test.msgpack: its value is a map, not binary or a string "
        + "(members hold bytes)");
  }

  @Test
  void refusesRecordsWithoutAValidKeyNamingTheirIndex() {
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> {
      record(p, "ok", "a", bytes("x"));
      p.packMapHeader(1).packString("jpg").packBinaryHeader(1).writePayload(new byte[1]);
    }))).isInstanceOf(ArchiveException.class)
        .hasMessage(SHARD + "the record at index 1 has no __key__ (each map needs one: the record's key)");
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> p.packArrayHeader(2).packInt(1).packInt(2))))
        .hasMessage(SHARD + "the record at index 0 is an array, not a map (a msgpack shard is a sequence of maps, "
            + "one per record)");
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> record(p, "a/x.y", "jpg", bytes("x")))))
        .hasMessage(SHARD + "the record at index 0 has the key 'a/x.y', which is not a WebDataset key (its last path "
            + "component must not contain a dot)");
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> p.packMapHeader(1).packString("__key__").packInt(7))))
        .hasMessage(SHARD + "the record at index 0 has a __key__ that is an integer, not a string");
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> record(p, "../up", "jpg", bytes("x")))))
        .hasMessage("Cannot read member ../up.jpg of shard test.msgpack: names must not contain '..' (it would escape "
            + "the dataset)");
  }

  @Test
  void refusesSuffixesThatCannotNameAMember() {
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> record(p, "k", "a", bytes("1"), "a", bytes("2")))))
        .hasMessage("Cannot read member k.a of shard test.msgpack: the record at index 0 has it twice");
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> record(p, "k", "sub/jpg", bytes("1")))))
        .hasMessage("Cannot read member k.sub/jpg of shard test.msgpack: its map key 'sub/jpg' is not a suffix (it "
            + "must be non-empty and without '/', such as jpg or seg.png)");
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> {
      p.packMapHeader(3).packString("__key__").packString("k").packString("jpg").packBinaryHeader(0);
      p.packString("__key__").packString("k");
    }))).hasMessage(SHARD + "the record at index 0 has __key__ twice");
  }

  /**
   * A member past the cap is refused where it would be held (read whole, or met before the record's key), and
   * streams where it is not: create writes members of up to the record limit, and extract reads them back streaming.
   */
  @Test
  void capsMemberSizesAndEntryCounts() throws IOException {
    ArchiveLimits small = new ArchiveLimits(100, 1 << 20, 1000, 1L << 40);
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> record(p, "k", "bin", new byte[101])), small))
        .hasMessage("Cannot read member k.bin of shard test.msgpack: its 101 bytes exceed the 100 bytes a member may "
            + "have in memory");
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> {
      p.packMapHeader(2).packString("bin").packBinaryHeader(101).writePayload(new byte[101]);
      p.packString("__key__").packString("k");
    }), small)).hasMessage("Cannot read member bin of the record at index 0 of shard test.msgpack: its 101 bytes "
        + "exceed the 100 bytes a member may have in memory");
    // Met after the key, a member past the cap streams whole (as extract reads it); only reading it whole is refused.
    try (MsgpackReader reader = reader(pack(p -> record(p, "k", "bin", new byte[101])), small)) {
      ArchiveMember member = reader.next();
      try (InputStream data = member.data()) {
        assertThat(data.readAllBytes()).hasSize(101);
      }
      assertThat(reader.next()).isNull();
    }
    assertThatThrownBy(() -> MsgpackShards.read(pack(p -> p.packMapHeader(10_001))))
        .hasMessage(SHARD + "the record at index 0 has 10001 entries, more than the 10000 allowed");
  }

  @Test
  void refusesTruncatedAndGarbageInputWithoutLeakingMsgpackExceptions() throws IOException {
    byte[] shard = MsgpackShards.write(List.of(new Record("k", List.of(new Member("k.bin", new byte[50])))));
    assertThatThrownBy(() -> MsgpackShards.read(Arrays.copyOf(shard, shard.length - 10)))
        .isInstanceOf(ArchiveException.class)
        .hasMessage("Cannot read member k.bin of shard test.msgpack: truncated: the stream ends inside the member's "
            + "data");
    assertThatThrownBy(() -> MsgpackShards.read(Arrays.copyOf(shard, 5)))
        .hasMessage(SHARD + "truncated: the stream ends inside the record at index 0");
    assertThatThrownBy(() -> MsgpackShards.read(new byte[] {(byte) 0x81, (byte) 0xc1}))
        .isInstanceOf(ArchiveException.class)
        .hasMessageStartingWith(SHARD + "corrupt msgpack data in the record at index 0: ");
    assertThat(MsgpackShards.read(new byte[0])).isEmpty();
  }

  @Test
  void passesFailuresOfTheSourceThroughUnchanged() throws IOException {
    byte[] shard = MsgpackShards.write(List.of(new Record("k", List.of(new Member("k.bin", new byte[50_000])))));
    IOException failure = new IOException("Connection reset");
    InputStream failing = new FilterInputStream(new ByteArrayInputStream(shard)) {
      private int read;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (read > 20_000) {
          throw failure;
        }
        int n = super.read(b, off, Math.min(len, 1000));
        read += Math.max(n, 0);
        return n;
      }
    };
    assertThatThrownBy(() -> {
      try (MsgpackReader reader = new MsgpackReader(failing, "test.msgpack", ArchiveLimits.DEFAULT)) {
        reader.next().readData();
      }
    }).isSameAs(failure);
  }

  private static MsgpackReader reader(byte[] shard, ArchiveLimits limits) {
    return new MsgpackReader(new ByteArrayInputStream(shard), "test.msgpack", limits);
  }

  /** One record map: __key__ first, then suffix and data pairs. */
  private static void record(MessagePacker packer, String key, Object... suffixesAndData) throws IOException {
    packer.packMapHeader(1 + suffixesAndData.length / 2).packString("__key__").packString(key);
    for (int i = 0; i < suffixesAndData.length; i += 2) {
      byte[] data = (byte[]) suffixesAndData[i + 1];
      packer.packString((String) suffixesAndData[i]).packBinaryHeader(data.length).writePayload(data);
    }
  }

  private static byte[] pack(Packing packing) throws IOException {
    MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
    packing.pack(packer);
    return packer.toByteArray();
  }

  private interface Packing {
    void pack(MessagePacker packer) throws IOException;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static java.util.Map.Entry<String, String> entry(String name, String hex) {
    return java.util.Map.entry(name, hex);
  }
}
