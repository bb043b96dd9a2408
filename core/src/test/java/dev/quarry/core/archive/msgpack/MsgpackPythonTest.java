package dev.quarry.core.archive.msgpack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.testkit.CommandResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Shards written by Python's msgpack read here, and shards written here read by Python as the same dicts. */
class MsgpackPythonTest {
  @TempDir Path temp;

  @Test
  void readsEveryMemberAndByteOfConcatenatedMapsPackedByPython() throws Exception {
    CommandResult.check(temp, MsgpackShards.python(), "-c", """
        import msgpack
        records = [
            {'__key__': 'a/x', 'jpg': bytes(range(256)) * 40, 'cls': b'3'},
            {'__key__': 'a/y', 'seg.png': b'\\x89PNG', 'txt': 'h\\u00e9llo, text as str'},
            {'jpg': b'key written last', '__key__': 'b/donn\\u00e9es'},
            {'__key__': 'c', 'empty': b''},
        ]
        with open('py.msgpack', 'wb') as f:
            for r in records:
                f.write(msgpack.packb(r, use_bin_type=True))
        """);
    byte[] shard = Files.readAllBytes(temp.resolve("py.msgpack"));

    Map<String, String> expected = new LinkedHashMap<>();
    byte[] jpg = new byte[256 * 40];
    for (int i = 0; i < jpg.length; i++) {
      jpg[i] = (byte) i;
    }
    expected.put("a/x.jpg", hex(jpg));
    expected.put("a/x.cls", hex("3"));
    expected.put("a/y.seg.png", hex(new byte[] {(byte) 0x89, 'P', 'N', 'G'}));
    expected.put("a/y.txt", hex("héllo, text as str"));
    expected.put("b/données.jpg", hex("key written last"));
    expected.put("c.empty", "");
    assertThat(MsgpackShards.read(shard)).containsExactlyEntriesOf(expected);
  }

  @Test
  void pythonsUnpackerReadsOurShardsAsTheSameDicts() throws Exception {
    List<Record> records = List.of(
        new Record("a/x", List.of(new Member("a/x.jpg", new byte[] {0, 1, 2, (byte) 255}),
            new Member("a/x.cls", "7".getBytes()))),
        new Record("b/été", List.of(new Member("b/été.seg.png", "png".repeat(100).getBytes()))),
        new Record("c", List.of(new Member("c.empty", new byte[0]))));
    Files.write(temp.resolve("ours.msgpack"), MsgpackShards.write(records));

    String printed = CommandResult.check(temp, MsgpackShards.python(), "-c", """
        import msgpack
        with open('ours.msgpack', 'rb') as f:
            for d in msgpack.Unpacker(f, raw=False):
                print(repr(list(d.keys())), ' '.join(v if isinstance(v, str) else v.hex() for v in d.values()))
        """);
    assertThat(printed.lines()).containsExactly(
        "['__key__', 'jpg', 'cls'] a/x 000102ff " + hex("7"),
        "['__key__', 'seg.png'] b/été " + hex("png".repeat(100)),
        "['__key__', 'empty'] c ");
    assertThat(MsgpackShards.read(Files.readAllBytes(temp.resolve("ours.msgpack")))).containsOnlyKeys(
        "a/x.jpg", "a/x.cls", "b/été.seg.png", "c.empty");
  }

  private static String hex(String text) {
    return hex(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String hex(byte[] bytes) {
    return java.util.HexFormat.of().formatHex(bytes);
  }
}
