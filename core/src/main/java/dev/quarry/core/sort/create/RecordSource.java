package dev.quarry.core.sort.create;

import dev.quarry.core.sort.extract.PackStore;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/** Where a record's raw bytes are read from: the input object of a plain tar, or its shard's pack. */
public final class RecordSource {
  private final List<InputShard> inputs;
  private final ObjectStores stores;
  private final PackStore packs;

  public RecordSource(List<InputShard> inputs, ObjectStores stores, PackStore packs) {
    this.inputs = inputs;
    this.stores = stores;
    this.packs = packs;
  }

  public InputStream open(int shard, boolean packed, long offset, long length) throws IOException {
    if (packed) {
      return packs.read(shard, offset, length);
    }
    Location location = stores.locate(inputs.get(shard).url());
    return location.store().getRange(location.key(), offset, length);
  }
}
