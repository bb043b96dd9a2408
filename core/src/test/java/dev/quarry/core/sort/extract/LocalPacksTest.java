package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.OpenDescriptors;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Packs stay in memory under the budget, move to disk mid-write beyond it, and read back any range either way. */
class LocalPacksTest {
  private static final int CHUNK = ChunkedBytes.CHUNK;

  @TempDir
  Path dir;

  @Test
  void packsWithinTheBudgetStayInMemoryAndReadBackAnyRange() throws IOException {
    byte[] data = random(CHUNK * 2 + 12345, 1);
    try (LocalPacks packs = new LocalPacks(dir.resolve("spill"), 3L * CHUNK)) {
      write(packs, 7, data, 1000);
      assertThat(packs.heldBytes()).isEqualTo(3L * CHUNK);
      assertThat(dir.resolve("spill")).doesNotExist();
      assertRangesRead(packs, 7, data);
    }
  }

  @Test
  void aPackThatOutgrowsTheBudgetMovesToItsFileMidWayAndFreesItsMemory() throws IOException {
    byte[] first = random(CHUNK + 10, 2);
    byte[] second = random(CHUNK * 3 + 77, 3);
    try (LocalPacks packs = new LocalPacks(dir.resolve("spill"), 3L * CHUNK)) {
      write(packs, 0, first, 4096);
      assertThat(packs.heldBytes()).isEqualTo(2L * CHUNK);
      write(packs, 1, second, 65536); // its second chunk would pass the budget
      assertThat(packs.heldBytes()).isEqualTo(2L * CHUNK);
      assertThat(Files.size(dir.resolve("spill/pack-00000001.tar"))).isEqualTo(second.length);
      assertRangesRead(packs, 0, first);
      assertRangesRead(packs, 1, second);
    }
  }

  /**
   * The chunks a spilled or discarded pack held go to the next packs, not to the collector: direct memory, counted
   * by the JVM's "direct" buffer pool, never passes the budget however many packs spill. Before, each spill left its
   * chunks allocated until a collection, and a local run held twice its budget of them.
   */
  @Test
  void directMemoryStaysWithinTheBudgetHoweverManyPacksSpill() throws IOException {
    BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
        .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
    long before = direct.getMemoryUsed();
    try (LocalPacks packs = new LocalPacks(dir.resolve("spill"), 4L * CHUNK)) {
      long most = 0;
      for (int shard = 0; shard < 40; shard++) {
        // Each pack takes what the budget has left and then spills, or is discarded unfinished.
        try (PackStore.PackOutput pack = packs.create(shard)) {
          pack.stream().write(random(CHUNK * 3, shard));
          if (shard % 3 != 0) {
            pack.commit();
          }
        }
        most = Math.max(most, direct.getMemoryUsed() - before);
      }
      assertThat(most).as("direct bytes allocated at most").isLessThanOrEqualTo(4L * CHUNK);
    }
  }

  /**
   * The JVM's direct memory limit is shared with the JDK's own I/O buffers, so it may run out before the packs' budget
   * does: the pack then moves to its file, as past the budget. Before, `sort run` died with "Cannot reserve direct
   * buffer memory" (a JVM of its own, whose limit of 8 MiB is far below the budget of 64 MiB).
   */
  @Test
  void aPackMovesToItsFileWhenTheJvmsDirectMemoryRunsOutBeforeTheBudget() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult run = CommandResult.run(dir, List.of(java, "-XX:MaxDirectMemorySize=8m", "-cp",
        System.getProperty("java.class.path"), SmallDirectLimit.class.getName(), dir.toString()));

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout().lines()).containsExactly("read back whole", "spilled at least " + 20 * CHUNK,
        "collections forced by the next 8 packs: 0");
  }

  /**
   * Writes a pack of 20 MiB under a budget of 64 MiB, reads it back, then 8 packs of 3 MiB, more than the chunks the
   * first gave back, and says where they went and how many collections those 8 made: once direct memory has run out,
   * a pack spills without trying to allocate again, which made the JDK collect and wait about half a second for each
   * (found by review).
   */
  public static final class SmallDirectLimit {
    public static void main(String[] args) throws IOException {
      byte[] data = random(20 * CHUNK, 9);
      try (LocalPacks packs = new LocalPacks(Path.of(args[0]).resolve("spill"), 64L * CHUNK)) {
        write(packs, 0, data, 65536);
        boolean whole;
        try (InputStream in = packs.read(0, 0, data.length)) {
          whole = Arrays.equals(in.readAllBytes(), data);
        }
        long collections = collections();
        for (int shard = 1; shard <= 8; shard++) {
          write(packs, shard, random(3 * CHUNK, shard), 65536);
        }
        System.out.println(whole ? "read back whole" : "read back changed");
        System.out.println(packs.spilledBytes() >= 20 * CHUNK ? "spilled at least " + 20 * CHUNK
            : "spilled " + packs.spilledBytes());
        System.out.println("collections forced by the next 8 packs: " + (collections() - collections));
      }
    }

    private static long collections() {
      return ManagementFactory.getGarbageCollectorMXBeans().stream()
          .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionCount).sum();
    }
  }

  /**
   * A spilled pack's file opens once for all the reads of its records, and closes with the packs: a read per record
   * opened, stat'ed and closed it before, which cost more than a small record (a local run of 320,000 records of 1 KiB
   * of tar.lz4 under a 256Mi budget: create 3.0 to 3.3 s, then 2.1 to 2.2 s).
   */
  @Test
  void aSpilledPackOpensOnceForAllItsReadsAndClosesWithThePacks() throws IOException {
    byte[] data = random(CHUNK * 2, 8);
    Path file = dir.resolve("spill/pack-00000002.tar");
    try (LocalPacks packs = new LocalPacks(dir.resolve("spill"), CHUNK)) {
      write(packs, 2, data, 65536);
      assertThat(file).hasSize(data.length);
      List<InputStream> open = new ArrayList<>();
      try {
        for (int record = 0; record < 100; record++) {
          open.add(packs.read(2, record * 1000L, 1000));
        }
        for (int record = 0; record < 100; record++) {
          assertThat(open.get(record).readAllBytes())
              .isEqualTo(Arrays.copyOfRange(data, record * 1000, record * 1000 + 1000));
        }
        assertThat(OpenDescriptors.of(file)).as("descriptors of the spill file, 100 reads open").hasSize(1);
      } finally {
        for (InputStream in : open) {
          in.close();
        }
      }
      assertThat(OpenDescriptors.of(file)).as("descriptors of the spill file, its reads closed").hasSize(1);
    }
    assertThat(OpenDescriptors.of(file)).as("descriptors of the spill file, the packs closed").isEmpty();
  }

  @Test
  void anUncommittedPackLeavesNeitherMemoryNorFile() throws IOException {
    try (LocalPacks packs = new LocalPacks(dir.resolve("spill"), CHUNK)) {
      try (PackStore.PackOutput pack = packs.create(0)) {
        pack.stream().write(random(CHUNK / 2, 4));
      }
      assertThat(packs.heldBytes()).isZero();
      try (PackStore.PackOutput pack = packs.create(1)) {
        pack.stream().write(random(CHUNK * 2, 5));
      }
      assertThat(packs.heldBytes()).isZero();
      assertThat(dir.resolve("spill/pack-00000001.tar")).doesNotExist();
    }
  }

  @Test
  void aRangePastTheEndIsAnError() throws IOException {
    try (LocalPacks packs = new LocalPacks(dir.resolve("spill"), CHUNK)) {
      write(packs, 3, random(100, 6), 100);
      assertThatThrownBy(() -> packs.read(3, 50, 51)).isInstanceOf(IOException.class)
          .hasMessageContaining("past its 100 bytes");
      write(packs, 4, random(CHUNK * 2, 7), 65536); // spilled
      assertThatThrownBy(() -> packs.read(4, CHUNK * 2L - 10, 11)).isInstanceOf(IOException.class)
          .hasMessage("Cannot read pack of shard 4: range " + (CHUNK * 2L - 10) + "+11 is past its end");
    }
  }

  private static void write(LocalPacks packs, int shard, byte[] data, int piece) throws IOException {
    try (PackStore.PackOutput pack = packs.create(shard)) {
      for (int at = 0; at < data.length; at += piece) {
        pack.stream().write(data, at, Math.min(piece, data.length - at));
      }
      pack.commit();
    }
  }

  /** Ranges within a chunk, across chunk edges, and the whole pack, read both in bulk and byte by byte. */
  private static void assertRangesRead(LocalPacks packs, int shard, byte[] data) throws IOException {
    int[][] ranges = {{0, data.length}, {CHUNK - 3, 7}, {5, 1000}, {data.length - 1, 1}, {CHUNK, 0}};
    for (int[] range : ranges) {
      byte[] expected = Arrays.copyOfRange(data, range[0], range[0] + range[1]);
      try (InputStream in = packs.read(shard, range[0], range[1])) {
        assertThat(in.readAllBytes()).isEqualTo(expected);
      }
      try (InputStream in = packs.read(shard, range[0], range[1])) {
        for (byte b : expected) {
          assertThat(in.read()).isEqualTo(b & 0xff);
        }
        assertThat(in.read()).isEqualTo(-1);
      }
    }
  }

  private static byte[] random(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }
}
