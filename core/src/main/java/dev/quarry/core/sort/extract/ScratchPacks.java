package dev.quarry.core.sort.extract;

import dev.quarry.core.sort.Scratch;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectUpload;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Packs as objects under the scratch prefix, uploaded as they are read and fetched by ranged reads. */
public final class ScratchPacks implements PackStore {
  private final ObjectStore store;
  private final Scratch scratch;

  public ScratchPacks(ObjectStore store, Scratch scratch) {
    this.store = store;
    this.scratch = scratch;
  }

  @Override
  public PackOutput create(int shard) throws IOException {
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

  @Override
  public InputStream read(int shard, long offset, long length) throws IOException {
    return store.getRange(scratch.pack(shard), offset, length);
  }
}
