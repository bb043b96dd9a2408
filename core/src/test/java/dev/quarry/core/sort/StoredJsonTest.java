package dev.quarry.core.sort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.json.Json;
import dev.quarry.core.sort.create.CreatedShard;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.store.FileStore;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoredJsonTest {
  @TempDir Path root;

  @Test
  void readsWhatItWrote() throws Exception {
    try (FileStore store = new FileStore(root)) {
      CreatedShard shard = new CreatedShard(3, "s3://b/out/x-3.tar", 10, 2, "ab".repeat(32));
      StoredJson.write(store, "scratch/created/3.json", shard);
      assertThat(StoredJson.read(store, "scratch/created/3.json", CreatedShard.class)).isEqualTo(shard);
    }
  }

  /**
   * A document that is JSON's null, planted where a marker goes, is refused as not one, in one line: no phase writes
   * it, and read as a value it was a NullPointerException in whoever looked for the marker.
   */
  @Test
  void aDocumentOfNullIsRefusedAsNotADocument() throws Exception {
    try (FileStore store = new FileStore(root)) {
      store.put("scratch/extract/00000/done.json", "null".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      for (var read : List.<ThrowingRead>of(
          () -> StoredJson.read(store, "scratch/extract/00000/done.json", CreatedShard.class),
          () -> StoredJson.readIfPresent(store, "scratch/extract/00000/done.json", CreatedShard.class))) {
        assertThatThrownBy(read::run).isInstanceOf(IOException.class)
            .hasMessage("Cannot read " + store.url("scratch/extract/00000/done.json") + ": it is not a valid"
                + " CreatedShard document (it was changed or is corrupt; rerun the phase that wrote it)");
      }
      assertThat(StoredJson.readIfPresent(store, "scratch/extract/00001/done.json", CreatedShard.class)).isEmpty();
    }
  }

  private interface ThrowingRead {
    Object run() throws Exception;
  }

  /** A valid document just past the cap, planted where the plan's list of inputs goes: refused, not parsed. */
  @Test
  void aDocumentLargerThanTheCapIsRefused() throws Exception {
    Path planted = root.resolve("scratch/inputs.json");
    Files.createDirectories(planted.getParent());
    byte[] entry = Json.bytes(new InputShard(0, "s3://b/in/x.tar", ShardFormat.TAR));
    try (OutputStream out = Files.newOutputStream(planted)) {
      out.write('[');
      out.write(entry);
      for (long written = entry.length + 1; written <= StoredJson.MAX_BYTES; written += entry.length + 1) {
        out.write(',');
        out.write(entry);
      }
      out.write(']');
    }
    try (FileStore store = new FileStore(root)) {
      assertThatThrownBy(() -> StoredJson.read(store, "scratch/inputs.json", InputShard[].class))
          .isInstanceOf(IOException.class)
          .hasMessage("Cannot read " + store.url("scratch/inputs.json") + ": it is larger than 64 MiB, more than"
              + " a sort writes there (it was changed or is corrupt; rerun the phase that wrote it)");
    }
  }

  @Test
  void aDocumentLargerThanTheCapIsNotWritten() throws Exception {
    try (FileStore store = new FileStore(root)) {
      List<String> huge = Collections.nCopies((int) (StoredJson.MAX_BYTES >> 10), "x".repeat(1024));
      assertThatThrownBy(() -> StoredJson.write(store, "scratch/plan.json", huge))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith("Cannot write " + store.url("scratch/plan.json") + ": it would be ")
          .hasMessageEndingWith(" MiB, more than the 64 MiB a worker reads back (split the job: fewer input or"
              + " output shards)");
      assertThat(store.head("scratch/plan.json")).isEmpty();
    }
  }
}
