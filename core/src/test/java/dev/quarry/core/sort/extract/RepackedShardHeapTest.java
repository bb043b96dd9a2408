package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.Shards;
import dev.quarry.core.archive.msgpack.MsgpackShards;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.ShardReaders;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.SortPhases;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.testkit.CommandResult;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zip and msgpack inputs, which extract re-encodes into tar packs, extracted by a JVM of its own whose heap is small:
 * what a worker holds of a shard is a member, not the shard.
 */
class RepackedShardHeapTest {
  private static final int MIB = 1 << 20;
  private static final int ZIP_RECORDS = 4;
  private static final int ZIP_MEMBER_BYTES = 12 * MIB;
  private static final int MSGPACK_RECORDS = 12;
  private static final int MSGPACK_MEMBER_BYTES = 2 * MIB;

  @TempDir
  Path dir;

  /**
   * Two zips of 96 MiB (made by the zip tool, each record's two members apart: every record's first member, then every
   * record's second) and a msgpack of 48 MiB (made by Python's msgpack) extract under a 64 MiB heap, and the shards
   * sorted from them hold the records whole, members in the inputs' order, bytes intact. Before, extract grouped each
   * of these shards whole in the heap, up to 4 at once (192 MiB here), and the child ran out of heap.
   */
  @Test
  void zipAndMsgpackShardsAreRepackedAMemberAtATime() throws Exception {
    Path in = Files.createDirectories(dir.resolve("in"));
    List<String> expected = new ArrayList<>();
    for (int shard = 0; shard < 2; shard++) {
      Path files = Files.createDirectories(dir.resolve("zip-" + shard));
      List<String> firsts = new ArrayList<>();
      List<String> seconds = new ArrayList<>();
      for (int record = 0; record < ZIP_RECORDS; record++) {
        String key = "s" + shard + "r" + record;
        String a = writeRandom(files.resolve(key + ".a.bin"), ZIP_MEMBER_BYTES, shard * 100L + record);
        String b = writeRandom(files.resolve(key + ".b.bin"), ZIP_MEMBER_BYTES, shard * 100L + record + 50);
        firsts.add(key + ".a.bin");
        seconds.add(key + ".b.bin");
        expected.add(key + ".a.bin=" + a);
        expected.add(key + ".b.bin=" + b);
      }
      List<String> zip = new ArrayList<>(List.of("zip", "-0", "-q", in.resolve("in-00" + shard + ".zip").toString()));
      zip.addAll(firsts);
      zip.addAll(seconds);
      CommandResult zipped = CommandResult.run(files, zip);
      assertThat(zipped.exitCode()).as(zipped.stderr()).isZero();
    }
    Path msgpack = in.resolve("in-002.msgpack");
    CommandResult packed = CommandResult.run(dir, List.of(MsgpackShards.python(), "-c", """
        import hashlib, msgpack, random, sys
        rng = random.Random(7)
        with open(sys.argv[1], "wb") as out:
            for r in range(int(sys.argv[2])):
                a, b = rng.randbytes(int(sys.argv[3])), rng.randbytes(int(sys.argv[3]))
                out.write(msgpack.packb({"__key__": "m%d" % r, "a.bin": a, "b.bin": b}))
                print("m%d.a.bin=%s" % (r, hashlib.sha256(a).hexdigest()))
                print("m%d.b.bin=%s" % (r, hashlib.sha256(b).hexdigest()))
        """, msgpack.toString(), Integer.toString(MSGPACK_RECORDS), Integer.toString(MSGPACK_MEMBER_BYTES)));
    assertThat(packed.exitCode()).as(packed.stderr()).isZero();
    expected.addAll(packed.stdout().lines().toList());

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult run = CommandResult.run(dir, List.of(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        SmallHeapExtract.class.getName(), dir.toString()));
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout().lines()).containsExactly("records " + (2 * ZIP_RECORDS + MSGPACK_RECORDS));

    try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
      SortPhases phases = phases(stores, dir);
      phases.plan(1);
      phases.createThenCommit(0, 1);
      List<String> written = new ArrayList<>();
      try (InputStream shard = Files.newInputStream(dir.resolve("out/x-0.tar"));
          ShardReader reader = ShardReaders.open(ShardFormat.TAR, shard, "x-0.tar", ArchiveLimits.DEFAULT)) {
        for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
          written.add(member.name() + "=" + Shards.sha256(member.data()));
        }
      }
      assertThat(written).as("each record whole, in the order its first member came").containsExactlyElementsOf(
          expected);
    }
  }

  private static SortPhases phases(ObjectStores stores, Path dir) {
    SortSpec spec = new SortSpec(new SortSpec.Input(null, null, List.of(dir + "/in/in-000.zip",
        dir + "/in/in-001.zip", dir + "/in/in-002.msgpack"), null),
        new SortSpec.Output(dir + "/out/x-{0..}.tar", "tar", null, 1000L, null),
        new SortSpec.Order(OrderKind.NONE, null, null, null, null), null, new SortSpec.Workers("64Mi", null), null,
        false);
    Location scratch = stores.locate(dir + "/scratch/");
    return new SortPhases(spec, stores, scratch, new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false,
        new PrintStream(OutputStream.nullOutputStream()));
  }

  private static String writeRandom(Path file, int bytes, long seed) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    Random random = new Random(seed);
    byte[] chunk = new byte[1 << 16];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (int written = 0; written < bytes; written += chunk.length) {
        random.nextBytes(chunk);
        out.write(chunk);
        digest.update(chunk);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  /** Extracts the three input shards, as an extract worker of a 64Mi budget does. */
  public static final class SmallHeapExtract {
    public static void main(String[] args) throws Exception {
      try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
        System.out.println("records " + phases(stores, Path.of(args[0])).extract(0, 1).records());
      }
    }
  }
}
