package dev.quarry.core.archive.msgpack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.CorruptionFuzzer;
import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Randomly corrupted msgpack shards never hang and never crash: each read ends normally or in an ArchiveException. */
class MsgpackFuzzTest {
  private static final int ITERATIONS = 300;

  @Test
  void corruptShardsEndInAClearError() throws Exception {
    Random content = new Random(3);
    List<Record> records = new ArrayList<>();
    for (String key : List.of("a", "b/" + "long".repeat(40), "c", "données/d")) {
      byte[] bin = new byte[3000];
      content.nextBytes(bin);
      records.add(new Record(key, List.of(new Member(key + ".cls", ("class " + key).getBytes()),
          new Member(key + ".bin", bin), new Member(key + ".seg.png", new byte[40]))));
    }
    byte[] good = MsgpackShards.write(records);
    int failed = CorruptionFuzzer.fuzz(good, 17, ITERATIONS, MsgpackShards::read);
    // Flipped data bytes go unnoticed (msgpack has no checksum); truncation and broken structure do not.
    assertThat(failed).as("corruptions detected out of " + ITERATIONS).isGreaterThan(ITERATIONS / 4);
  }
}
