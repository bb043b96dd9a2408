package dev.quarry.core.sort.extract;

import dev.quarry.core.sort.Scratch;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectUpload;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;

/**
 * Packs as objects under the scratch prefix, fetched by ranged reads; uploaded as they are read, or, to a store that
 * is not local, spooled to a local file whose parts are sent from it as it grows, holding none
 * ({@link #spoolingIn(Path)}, {@link ObjectStore#spooledUpload}).
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

  /**
   * An upload of the pack: streamed, or spooled to a local file that sends its parts as it grows (their sizes grow
   * as a streamed upload's do: a pack's size is not known before it is read).
   */
  @Override
  public PackOutput create(int shard) throws IOException {
    String key = scratch.pack(shard);
    ObjectUpload upload = spool == null ? store.upload(key)
        : store.spooledUpload(key, spool.resolve("pack-" + shard + ".tar"), 0);
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

  @Override
  public InputStream read(int shard, long offset, long length) throws IOException {
    return store.getRange(scratch.pack(shard), offset, length);
  }
}
