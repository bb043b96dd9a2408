package dev.quarry.core.gen;

import dev.quarry.core.archive.ShardWriter;
import dev.quarry.core.archive.ShardWriters;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Writes a synthetic dataset into a local directory. Shards are written in parallel, each to a temporary file
 * that is renamed into place when complete, so a shard that exists is whole.
 */
public final class DatasetGenerator {
  private final DatasetSpec spec;
  private final RecordFactory records;

  public DatasetGenerator(DatasetSpec spec) {
    this.spec = spec;
    this.records = new RecordFactory(spec);
  }

  /** Writes every shard into {@code directory} (created if needed); reports each finished shard to {@code done}. */
  public List<GeneratedShard> writeTo(Path directory, int threads, Consumer<GeneratedShard> done)
      throws IOException {
    Files.createDirectories(directory);
    List<GeneratedShard> shards = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<GeneratedShard>> pending = new ArrayList<>();
      for (int index = 0; index < spec.shards(); index++) {
        int shard = index;
        pending.add(pool.submit(() -> {
          GeneratedShard written = writeShard(directory, shard);
          done.accept(written);
          return written;
        }));
      }
      for (Future<GeneratedShard> future : pending) {
        shards.add(future.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Cannot generate dataset: interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      throw new IOException("Cannot generate dataset: " + e.getCause().getMessage(), e.getCause());
    }
    return shards;
  }

  private GeneratedShard writeShard(Path directory, int shard) {
    String name = spec.shardName(shard);
    Path target = directory.resolve(name);
    Path partial = directory.resolve("." + name + ".partial");
    try {
      long recordCount;
      try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(partial), 1 << 16);
          ShardWriter writer = ShardWriters.open(spec.format(), file)) {
        for (int position = 0; position < spec.recordsPerShard(); position++) {
          writer.write(records.record(shard, position));
        }
        recordCount = writer.records();
      }
      Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return new GeneratedShard(name, recordCount, Files.size(target));
    } catch (IOException e) {
      throw new UncheckedIOException(new IOException("Cannot write shard " + target + ": " + e.getMessage(), e));
    }
  }
}
