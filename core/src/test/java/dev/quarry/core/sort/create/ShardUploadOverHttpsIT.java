package dev.quarry.core.sort.create;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.archive.tar.TarWriter;
import dev.quarry.core.sort.extract.PackStore;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.HashedContent;
import dev.quarry.core.store.RangedContent;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.store.S3Store;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.MinioServer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A create worker's shards sent to S3 over HTTPS (a real MinIO with a certificate made for the test), where a
 * shard is not one signed PutObject but parts, by a JVM of its own whose heap is small.
 */
class ShardUploadOverHttpsIT {
  private static final int MIB = 1 << 20;
  private static final int RAW_BYTES = 96 * MIB;
  private static final int ZIP_RECORDS = 24;

  @TempDir
  Path dir;

  /**
   * A shard of 96 MiB goes under a 48 MiB heap with parts of 16 MiB or more: its parts are read from the local file
   * of its records' bytes as they are sent, and a zip shard from the file it is converted into. Before, over HTTPS a
   * tar shard streamed through an upload holding its 4 parts in flight and the one filling (80 MiB here; 4 shards at
   * once of 5 parts of 8 MiB, 160 MiB, at the default part size, past the heap of the least budget), and the child
   * ran out of heap; and it was 7 parts of 16 MiB where it is now 4 (a 256 MiB shard: 4 parts where there were 32).
   * A shard of another format streamed so over HTTP too, and ran out of heap the same way.
   */
  @Test
  void shardsGoOverHttpsInPartsReadFromTheirFilesHoldingNone() throws Exception {
    try (MinioServer minio = MinioServer.startTls()) {
      CommandResult run = runChild(minio, "-Xmx48m", SmallHeapShard.class);

      assertThat(minio.endpoint().getScheme()).isEqualTo("https");
      assertThat(run.exitCode()).as(run.stderr()).isZero();
      assertThat(run.stdout().lines()).containsExactly("bytes " + (RAW_BYTES + 1024), "parts 4",
          "read back as hashed", "records in process: bytes " + (RAW_BYTES + 1024), "parts 4", "read back as hashed",
          "zip: bytes " + Files.size(dir.resolve("2.zip")), "parts 4", "read back as hashed");
      CommandResult unzip = CommandResult.run(dir, List.of("unzip", "-t", dir.resolve("back.zip").toString()));
      assertThat(unzip.exitCode()).as(unzip.stdout() + unzip.stderr()).isZero();
      assertThat(unzip.stdout().lines().filter(line -> line.contains("testing:")).count()).isEqualTo(ZIP_RECORDS * 2);
    }
  }

  /**
   * Over HTTPS a tar shard is hashed in one pass and its parts are read again from where its records lie as they are
   * sent, with nothing on the wire compared with that hash. Records rewritten between the two passes (the same
   * length, other bytes) fail the upload, and no object appears; before, the object held the new bytes while the
   * shard's SHA-256, which the manifest names, was of the old.
   */
  @Test
  void aShardWhoseRecordsChangeBetweenItsHashAndItsUploadIsNotWritten() throws Exception {
    try (MinioServer minio = MinioServer.startTls()) {
      CommandResult run = runChild(minio, "-Xmx256m", ChangedBetweenPasses.class);

      assertThat(run.exitCode()).as(run.stderr()).isZero();
      assertThat(run.stdout().lines()).containsExactly("refused: Cannot write s3://shards/out/shard-000000.tar", "its bytes are not those hashed"
          + " before it was sent: block 20, from offset 20971520, differs (the input changed since extract; rerun the"
          + " job)", "no object");
    }
  }

  /**
   * Hashes a 40 MiB tar shard of records read from a file, as create does, rewrites one record's data in the file,
   * then sends the shard, and says what the store did.
   */
  public static final class ChangedBetweenPasses {
    public static void main(String[] args) throws Exception {
      Path raw = Path.of(args[0]).resolve("changed.raw");
      Random random = new Random(40);
      List<RecordEntry> entries = writeRecords(raw, "c", 40, MIB, random);
      HashedContent shard = ShardBuilder.tar(RangedContent.of(raw), HeldEntries.of(entries));
      try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(raw,
          java.nio.file.StandardOpenOption.WRITE)) {
        file.write(java.nio.ByteBuffer.wrap(SmallHeapShard.randomBytes(random, 1000)), 20L * MIB + 4096);
      }
      try (S3Store store = openStore(args, 8 * MIB)) {
        try {
          store.put("out/shard-000000.tar", shard);
          System.out.println("written");
        } catch (java.io.IOException e) {
          String message = e.getMessage();
          System.out.println("refused: " + message.substring(0, message.indexOf(".tar") + 4));
          System.out.println(message.substring(message.indexOf("its bytes")));
        }
        System.out.println(store.head("out/shard-000000.tar").isPresent() ? "an object" : "no object");
      }
    }
  }

  /**
   * Runs {@code main} in a JVM of its own with {@code heap}, trusting {@code minio}'s certificate; its arguments are
   * the test's folder and the server's endpoint and keys ({@link #openStore}).
   */
  private CommandResult runChild(MinioServer minio, String heap, Class<?> main) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return CommandResult.run(dir, List.of(java, heap, "-Djavax.net.ssl.trustStore=" + minio.trustStore(),
        "-Djavax.net.ssl.trustStoreType=PKCS12", "-Djavax.net.ssl.trustStorePassword=changeit", "-cp",
        System.getProperty("java.class.path"), main.getName(), dir.toString(), minio.endpoint().toString(),
        minio.accessKey(), minio.secretKey()));
  }

  /**
   * Writes to {@code raw} the raw tar bytes of {@code count} records of input shard 0, keys {@code prefix} and their
   * number, each one member of {@code recordBytes} of tar bytes (random data), and returns their entries in order.
   */
  static List<RecordEntry> writeRecords(Path raw, String prefix, int count, int recordBytes, Random random)
      throws java.io.IOException {
    List<RecordEntry> entries = new java.util.ArrayList<>();
    try (OutputStream out = Files.newOutputStream(raw)) {
      TarWriter tar = new TarWriter(out); // not closed: the raw bytes have no end-of-archive blocks
      for (int record = 0; record < count; record++) {
        long start = tar.bytesWritten();
        tar.writeMember(prefix + record + ".bin", SmallHeapShard.randomBytes(random, recordBytes - 512));
        entries.add(new RecordEntry(prefix + record, 0, record, false, List.of(new RawRange(start, recordBytes)),
            recordBytes, null));
      }
    }
    return entries;
  }

  /** The bucket {@code shards}, made on the server a child's {@code args} name, with parts of {@code partBytes}. */
  static S3Store openStore(String[] args, int partBytes) throws Exception {
    URI endpoint = URI.create(args[1]);
    try (S3Client sdk = S3Client.builder().endpointOverride(endpoint).region(Region.of(MinioServer.REGION))
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(args[2], args[3])))
        .forcePathStyle(true).build()) {
      sdk.createBucket(b -> b.bucket("shards"));
    }
    return S3Store.open("shards", S3Settings.defaults().withEndpoint(endpoint).withCredentials(args[2], args[3])
        .withPartSizeBytes(partBytes));
  }

  /** Writes the raw bytes of a shard's records (whole tar blocks), builds the shard as create does and sends it. */
  public static final class SmallHeapShard {
    public static void main(String[] args) throws Exception {
      // 48 records of one member, each 2 MiB of tar bytes: the raw bytes of a shard's records are whole tar members.
      Path raw = Path.of(args[0]).resolve("0.raw");
      Random random = new Random(96);
      List<RecordEntry> inOrder = writeRecords(raw, "r", 48, 2 * MIB, random);
      try (S3Store store = openStore(args, 16 * MIB)) {
        send(store, "out/shard-000000.tar", ShardBuilder.tar(RangedContent.of(raw), HeldEntries.of(inOrder)));
        // As `sort run` builds a shard: its records' ranges read where they are (two packs on disk, read through
        // streams, so that the heap holds none of them), 48 records of two members of 1 MiB of tar bytes each, in
        // two ranges, in an order not the packs'. Slot s of a pack is 2 MiB at s * 2 MiB; a slot no record takes
        // holds filler members.
        List<RecordEntry> entries = new java.util.ArrayList<>();
        String[][] slots = new String[2][48];
        for (int record = 0; record < 48; record++) {
          int slot = (record * 17) % 48;
          long at = (long) slot * 2 * MIB;
          slots[record % 2][slot] = "r" + record;
          entries.add(new RecordEntry("r" + record, record % 2, record, true,
              List.of(new RawRange(at, MIB), new RawRange(at + MIB, MIB)), 2 * MIB, null));
        }
        Path[] packFiles = new Path[2];
        for (int pack = 0; pack < 2; pack++) {
          packFiles[pack] = Path.of(args[0]).resolve("pack-" + pack);
          try (OutputStream out = Files.newOutputStream(packFiles[pack])) {
            TarWriter tar = new TarWriter(out);
            for (int slot = 0; slot < 48; slot++) {
              String key = slots[pack][slot] != null ? slots[pack][slot] : "filler" + slot;
              for (String suffix : List.of(".a", ".b")) {
                tar.writeMember(key + suffix, randomBytes(random, MIB - 512));
              }
            }
          }
        }
        PackStore onDisk = new PackStore() {
          @Override
          public PackOutput create(int shard) {
            throw new UnsupportedOperationException("read only");
          }

          @Override
          public InputStream read(int shard, long offset, long length) throws java.io.IOException {
            return new dev.quarry.core.store.FileRangeStream(java.nio.channels.FileChannel.open(packFiles[shard]),
                packFiles[shard].toString(), offset, offset + length);
          }
        };
        try (RecordSource source = new RecordSource(List.of(), null, onDisk)) {
          System.out.print("records in process: ");
          send(store, "out/shard-000001.tar", ShardBuilder.tar(OrderedRecordBytes.of(source, HeldEntries.of(entries)),
              HeldEntries.of(entries)));
        }
        // A zip shard converted from its records' raw tar bytes: 24 records of two members of 2 MiB.
        Path records = Path.of(args[0]).resolve("2.raw");
        List<RecordEntry> zipped = new java.util.ArrayList<>();
        try (OutputStream out = Files.newOutputStream(records); TarWriter tar = new TarWriter(out)) {
          random = new Random(24);
          byte[] data = new byte[2 * MIB];
          for (int record = 0; record < ZIP_RECORDS; record++) {
            long start = tar.bytesWritten();
            for (String suffix : List.of(".a", ".b")) {
              random.nextBytes(data);
              tar.writeMember("z" + record + suffix, data);
            }
            zipped.add(new RecordEntry("z" + record, 0, record, true,
                List.of(new RawRange(start, tar.bytesWritten() - start)), tar.bytesWritten() - start, null));
          }
        }
        System.out.print("zip: ");
        send(store, "out/shard-000002.zip", ShardBuilder.converted(ShardFormat.ZIP, HeldEntries.of(zipped),
            RangedContent.of(records), Path.of(args[0]).resolve("2.zip"), Long.MAX_VALUE));
        try (InputStream in = store.get("out/shard-000002.zip")) {
          Files.copy(in, Path.of(args[0]).resolve("back.zip"));
        }
      }
    }

    static byte[] randomBytes(Random random, int length) {
      byte[] bytes = new byte[length];
      random.nextBytes(bytes);
      return bytes;
    }

    /** Sends {@code shard} as create does and says its size, its parts and whether it reads back as hashed. */
    private static void send(S3Store store, String key, HashedContent shard) throws Exception {
      long before = store.requests().snapshot().put();
      store.put(key, shard);
      System.out.println("bytes " + store.head(key).orElseThrow().size());
      System.out.println("parts " + (store.requests().snapshot().put() - before - 2));
      MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
      try (InputStream in = store.get(key)) {
        byte[] buffer = new byte[1 << 16];
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          sha256.update(buffer, 0, n);
        }
      }
      System.out.println(Arrays.equals(sha256.digest(), shard.sha256()) ? "read back as hashed"
          : "read back changed");
    }
  }
}
