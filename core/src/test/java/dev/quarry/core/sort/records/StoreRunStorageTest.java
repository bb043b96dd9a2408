package dev.quarry.core.sort.records;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.store.RequestKind;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs as objects, read back a window at a time. */
class StoreRunStorageTest {
  @TempDir Path temp;

  /**
   * A run of two and a half windows reads back whole in three GETs and no HEAD: its first window gives its size.
   * Before, a HEAD came first, one in each run every merge opened (W of them in each partition step).
   */
  @Test
  void aRunIsReadInWindowsWhoseFirstGivesItsSize() throws Exception {
    byte[] bytes = new byte[WindowedRead.WINDOW_BYTES * 5 / 2];
    new Random(3).nextBytes(bytes);
    try (FileStore store = new FileStore(temp)) {
      StoreRunStorage storage = new StoreRunStorage(store);
      try (RunOutput run = storage.create("runs/run-000000.run")) {
        run.stream().write(bytes);
        run.commit();
      }
      long gets = store.requests().get(RequestKind.GET);
      try (InputStream in = storage.open("runs/run-000000.run")) {
        assertThat(in.readAllBytes()).isEqualTo(bytes);
      }
      assertThat(store.requests().get(RequestKind.HEAD)).as("HEADs").isZero();
      assertThat(store.requests().get(RequestKind.GET) - gets).as("GETs").isEqualTo(3);
    }
  }
}
