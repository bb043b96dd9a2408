package dev.quarry.core.sort.create;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.core.archive.ArchiveMember;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.ShardReader;
import dev.quarry.core.archive.ShardReaders;
import dev.quarry.core.archive.tar.TarWriter;
import dev.quarry.core.sort.LocalSort;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.SortPhases;
import dev.quarry.core.sort.extract.ScratchPacks;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.testkit.CommandResult;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A record of 136 MiB (a video and its features) is converted to zip and to msgpack under the least budget's heap
 * (16Mi: 64 MiB): a conversion holds a record whole only up to a share of the budget, and writes a larger one from a
 * file in the work folder. Before, every record was held whole while it was converted, three times over (its raw
 * bytes, its members, a member deflated): the child ran out of heap, as `sort run` under 256Mi did on a record of
 * 150 MiB. Each member of the output is the input's, byte for byte, read back by Python's zipfile and our readers.
 */
class LargeRecordHeapTest {
  private static final int COMPRESSIBLE = 96 << 20;
  private static final int RANDOM = 40 << 20;

  @TempDir
  Path dir;

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"zip, run", "msgpack, phases"})
  void aRecordLargerThanTheHeapIsConvertedUnderTheLeastBudget(String format, String mode) throws Exception {
    Map<String, String> members = writeInput();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult run = CommandResult.run(dir, List.of(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        SmallHeapConvert.class.getName(), dir.toString(), format, mode));
    assertThat(run.exitCode()).as(run.stderr()).isZero();

    Path shard;
    try (Stream<Path> listed = Files.list(dir.resolve("out"))) {
      shard = listed.filter(path -> path.getFileName().toString().startsWith("x-")).findFirst().orElseThrow();
    }
    assertThat(shard.getFileName().toString()).isEqualTo("x-0." + format);
    assertThat(read(shard, ShardFormat.ofExtension(format))).isEqualTo(members);
    if (format.equals("zip")) {
      CommandResult python = CommandResult.run(dir, List.of("python3", "-c", """
          import hashlib, sys, zipfile
          with zipfile.ZipFile(sys.argv[1]) as z:
              for info in z.infolist():
                  digest = hashlib.sha256()
                  with z.open(info) as member:
                      for block in iter(lambda: member.read(1 << 20), b''):
                          digest.update(block)
                  print(info.filename, digest.hexdigest())
          """, shard.toString()));
      assertThat(python.exitCode()).as(python.stderr()).isZero();
      assertThat(python.stdout().lines().toList()).containsExactlyInAnyOrderElementsOf(members.entrySet().stream()
          .map(member -> member.getKey() + " " + member.getValue()).toList());
    }
  }

  /** Writes the input shard: a small record, the large one, a small one; returns each member's SHA-256 by name. */
  private Map<String, String> writeInput() throws Exception {
    Path in = Files.createDirectories(dir.resolve("in")).resolve("in-0.tar");
    Map<String, String> members = new LinkedHashMap<>();
    byte[] line = "frame features 0.25 0.50 0.75 1.00\n".getBytes(StandardCharsets.US_ASCII);
    byte[] noise = new byte[RANDOM];
    new Random(5).nextBytes(noise);
    try (OutputStream out = Files.newOutputStream(in); TarWriter tar = new TarWriter(out)) {
      for (String key : List.of("a", "big", "c")) {
        byte[] cls = key.getBytes(StandardCharsets.US_ASCII);
        tar.writeMember(key + ".cls", cls);
        members.put(key + ".cls", sha256(new ByteArrayInputStream(cls)));
        if (key.equals("big")) {
          tar.writeMember("big.features", COMPRESSIBLE, repeated(line, COMPRESSIBLE));
          members.put("big.features", sha256(repeated(line, COMPRESSIBLE)));
          tar.writeMember("big.mp4", RANDOM, new ByteArrayInputStream(noise));
          members.put("big.mp4", sha256(new ByteArrayInputStream(noise)));
        }
      }
    }
    return members;
  }

  /** {@code size} bytes of {@code line} repeated, streamed. */
  private static InputStream repeated(byte[] line, long size) {
    long copies = size / line.length + 1;
    return new SequenceInputStream(Collections.enumeration(Collections.nCopies((int) copies, line).stream()
        .map(ByteArrayInputStream::new).toList())) {
      private long left = size;

      @Override
      public int read(byte[] buffer, int offset, int length) throws java.io.IOException {
        if (left == 0) {
          return -1;
        }
        int read = super.read(buffer, offset, (int) Math.min(length, left));
        if (read > 0) {
          left -= read;
        }
        return read;
      }
    };
  }

  private static Map<String, String> read(Path shard, ShardFormat format) throws Exception {
    Map<String, String> members = new LinkedHashMap<>();
    try (InputStream in = Files.newInputStream(shard);
        ShardReader reader = ShardReaders.open(format, in, shard.toString(), ArchiveLimits.DEFAULT)) {
      for (ArchiveMember member = reader.next(); member != null; member = reader.next()) {
        try (InputStream data = member.data()) {
          members.put(member.name(), sha256(data));
        }
      }
    }
    return members;
  }

  private static String sha256(InputStream in) throws Exception {
    var digest = Digest.sha256();
    in.transferTo(new DigestOutputStream(OutputStream.nullOutputStream(), digest));
    return HexFormat.of().formatHex(digest.digest());
  }

  /** Sorts the input in its order into one shard of {@code format} under the least budget, as a run or as phases. */
  public static final class SmallHeapConvert {
    public static void main(String[] args) throws Exception {
      Path dir = Path.of(args[0]);
      String format = args[1];
      SortSpec spec = new SortSpec(new SortSpec.Input(null, null, List.of(dir + "/in/in-0.tar"), null),
          new SortSpec.Output(dir + "/out/x-{0..}." + format, null, null, 10L, null),
          new SortSpec.Order(OrderKind.NONE, null, null, null, null), null, new SortSpec.Workers("16Mi", null), null,
          false);
      PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
      try (ObjectStores stores = new ObjectStores(S3Settings.defaults())) {
        if (args[2].equals("run")) {
          LocalSort.run(spec, stores, Files.createDirectories(dir.resolve("work")), quiet);
        } else {
          Location scratch = stores.locate(dir + "/scratch/");
          SortPhases phases = new SortPhases(spec, stores, scratch,
              new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, quiet);
          phases.extract(0, 1);
          phases.plan(1);
          phases.create(0, 1);
          phases.commit();
        }
      }
    }
  }
}
