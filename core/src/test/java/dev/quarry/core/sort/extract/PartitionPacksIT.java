package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.store.S3Store;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** An extract worker's pack upload to a real S3 (MinIO), in a JVM of its own whose heap is small. */
@ExtendWith(MinioExtension.class)
class PartitionPacksIT {
  private static final int MIB = 1 << 20;
  private static final int RECORD_BYTES = 48 * MIB;

  @TempDir
  Path dir;

  private final MinioServer minio;

  PartitionPacksIT(MinioServer minio) {
    this.minio = minio;
  }

  /**
   * A pack of 96 MiB uploads under a 48 MiB heap with parts of 16 MiB or more: its parts are read from the segments
   * as they are sent. Before, the pack streamed through an upload that held its 4 parts in flight and the one filling
   * in the heap (80 MiB here; 640 MiB for a pack past 60 GiB, one extract worker's share of a large sort, besides its
   * sorter's entries under a 1Gi budget), and the child ran out of heap. Parts sized from the pack (4 of 24 MiB) where
   * they were 7 of 16 MiB (the last of the table alone).
   */
  @Test
  void aPackUploadsWithoutHoldingItsPartsInTheHeap() throws Exception {
    String bucket = minio.createBucket("packs");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    CommandResult run = CommandResult.run(dir, List.of(java, "-Xmx48m", "-cp", System.getProperty("java.class.path"),
        SmallHeapUpload.class.getName(), dir.toString(), minio.endpoint().toString(), minio.accessKey(),
        minio.secretKey(), bucket));

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    assertThat(run.stdout().lines()).containsExactly("records " + 2L * RECORD_BYTES, "parts 4");
    try (ObjectStore store = S3Store.open(bucket, settings(minio.endpoint(), minio.accessKey(), minio.secretKey()))) {
      assertThat(store.head("pack").orElseThrow().size()).isEqualTo(SegmentTable.packSize(2L * RECORD_BYTES, 2));
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      try (InputStream in = store.getRange("pack", 0, 2L * RECORD_BYTES)) {
        byte[] buffer = new byte[1 << 16];
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          digest.update(buffer, 0, n);
        }
      }
      assertThat(HexFormat.of().formatHex(digest.digest())).as("the records, partition 0's then partition 1's")
          .isEqualTo(recordsSha256());
    }
  }

  private static S3Settings settings(URI endpoint, String accessKey, String secretKey) {
    return S3Settings.defaults().withEndpoint(endpoint).withCredentials(accessKey, secretKey)
        .withPartSizeBytes(16 * MIB);
  }

  /** Two records of 48 MiB, seeded: the second goes to partition 0, the first to partition 1. */
  private static void writeRecords(OutputStream out) throws IOException {
    Random random = new Random(20);
    byte[] chunk = new byte[1 << 16];
    for (long written = 0; written < 2L * RECORD_BYTES; written += chunk.length) {
      random.nextBytes(chunk);
      out.write(chunk);
    }
  }

  /** The pack's records as its segments hold them: the second record (partition 0), then the first. */
  private static String recordsSha256() throws Exception {
    java.io.ByteArrayOutputStream both = new java.io.ByteArrayOutputStream(2 * RECORD_BYTES);
    writeRecords(both);
    byte[] bytes = both.toByteArray();
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    digest.update(bytes, RECORD_BYTES, RECORD_BYTES);
    digest.update(bytes, 0, RECORD_BYTES);
    return HexFormat.of().formatHex(digest.digest());
  }

  /** Spools an input shard of two records, moves them into two partitions' segments and uploads the pack. */
  public static final class SmallHeapUpload {
    public static void main(String[] args) throws IOException {
      Path folder = Path.of(args[0]).resolve("packs");
      try (S3Store store = S3Store.open(args[4], settings(URI.create(args[1]), args[2], args[3]));
          PartitionPacks packs = new PartitionPacks(folder, 2, 0)) {
        try (PackStore.PackOutput shard = packs.spool().create(0)) {
          writeRecords(shard.stream());
          shard.commit();
        }
        List<RecordEntry> entries = List.of(
            new RecordEntry("a", 0, 0, true, List.of(new RawRange(0, RECORD_BYTES)), RECORD_BYTES, null),
            new RecordEntry("b", 0, 1, true, List.of(new RawRange(RECORD_BYTES, RECORD_BYTES)), RECORD_BYTES, null));
        try (PartitionPacks.ShardMove move = packs.moving(0)) {
          move.move(entries.get(0), 1);
          move.move(entries.get(1), 0);
        }
        long before = store.requests().snapshot().put();
        System.out.println("records " + packs.upload(store, "pack"));
        System.out.println("parts " + (store.requests().snapshot().put() - before - 2));
      }
    }
  }
}
