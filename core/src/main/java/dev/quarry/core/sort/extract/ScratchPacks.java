package dev.quarry.core.sort.extract;

import dev.quarry.core.sort.Scratch;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectUpload;
import dev.quarry.core.store.RangedContent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Packs as objects under the scratch prefix, fetched by ranged reads; uploaded as they are read, or, to a store that
 * is not local, spooled to a local file first and sent from it, holding no part ({@link #spoolingIn(Path)}).
 */
public final class ScratchPacks implements PackStore {
  private final ObjectStore store;
  private final Scratch scratch;
  private final Path spool;

  public ScratchPacks(ObjectStore store, Scratch scratch) {
    this(store, scratch, null);
  }

  private ScratchPacks(ObjectStore store, Scratch scratch, Path spool) {
    this.store = store;
    this.scratch = scratch;
    this.spool = spool;
  }

  /**
   * Streamed to S3, a pack held its parts in flight and the one filling (5 of 8 MiB for each of the 4 shards an
   * extract worker reads at once, past 4 GiB a pack larger ones), outside the budget; a local store holds none.
   */
  @Override
  public PackStore spoolingIn(Path folder) {
    return store.isLocal() ? this : new ScratchPacks(store, scratch, folder);
  }

  @Override
  public PackOutput create(int shard) throws IOException {
    return spool == null ? streamed(shard) : spooled(shard);
  }

  private PackOutput streamed(int shard) throws IOException {
    ObjectUpload upload = store.upload(scratch.pack(shard));
    return new PackOutput() {
      @Override
      public OutputStream stream() {
        return upload.stream();
      }

      @Override
      public void commit() throws IOException {
        upload.commit();
      }

      @Override
      public void close() throws IOException {
        upload.close();
      }
    };
  }

  /** The pack in a local file until it is whole, then sent from there; the file goes either way. */
  private PackOutput spooled(int shard) throws IOException {
    FilePackOutput file = new FilePackOutput(spool.resolve("pack-" + shard + ".tar"));
    return new PackOutput() {
      @Override
      public OutputStream stream() {
        return file.stream();
      }

      @Override
      public void commit() throws IOException {
        file.commit();
        try {
          store.put(scratch.pack(shard), RangedContent.of(file.file()));
        } finally {
          Files.deleteIfExists(file.file());
        }
      }

      @Override
      public void close() throws IOException {
        file.close();
      }
    };
  }

  @Override
  public InputStream read(int shard, long offset, long length) throws IOException {
    return store.getRange(scratch.pack(shard), offset, length);
  }
}
