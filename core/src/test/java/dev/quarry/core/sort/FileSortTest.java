package dev.quarry.core.sort;

import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;

/** The sort contract on the filesystem store, the embedded default. */
class FileSortTest extends SortContract {
  @Override
  ObjectStores openStores() {
    return new ObjectStores(S3Settings.defaults());
  }

  @Override
  String newRoot() {
    return temp + "/";
  }
}
