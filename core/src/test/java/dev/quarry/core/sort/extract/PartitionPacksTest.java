package dev.quarry.core.sort.extract;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionPacksTest {
  @TempDir
  Path folder;

  /** A spooled shard whose read failed is not kept on local disk until extract ends, as PackOutput promises. */
  @Test
  void aSpooledShardClosedWithoutCommitIsDiscarded() throws IOException {
    try (PartitionPacks packs = new PartitionPacks(folder.resolve("packs"), 2, 0)) {
      PackStore spool = packs.spool();
      try (PackStore.PackOutput failed = spool.create(0)) {
        failed.stream().write("half a shard".getBytes(StandardCharsets.UTF_8));
      }
      try (PackStore.PackOutput read = spool.create(1)) {
        read.stream().write("a whole shard".getBytes(StandardCharsets.UTF_8));
        read.commit();
      }

      assertThat(spooledShards()).containsExactly("shard-00000001.tar");
      try (var in = spool.read(1, 2, 5)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("whole");
      }
    }
  }

  /**
   * Closing the packs deletes their segments: an extract worker merges its spilled entries on the same disk after
   * the upload, and the segments (its whole share of the input) took that room until the worker ended. Until then
   * they have names, so that a kubelet measuring the pod's emptyDir by walking it counts them.
   */
  @Test
  void closingThePacksDeletesTheirSegments() throws IOException {
    try (PartitionPacks packs = new PartitionPacks(folder.resolve("packs"), 3, 0)) {
      assertThat(packs.spool()).isNotNull();
      assertThat(files()).contains("segment-00000", "segment-00001", "segment-00002");
    }
    assertThat(files()).noneMatch(name -> name.startsWith("segment-"));
  }

  private java.util.List<String> files() throws IOException {
    try (Stream<Path> files = Files.list(folder.resolve("packs"))) {
      return files.map(file -> file.getFileName().toString()).sorted().toList();
    }
  }

  private java.util.List<String> spooledShards() throws IOException {
    try (Stream<Path> files = Files.list(folder.resolve("packs"))) {
      return files.map(file -> file.getFileName().toString()).filter(name -> name.startsWith("shard-")).sorted()
          .toList();
    }
  }
}
