package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.sync.cas.Marker;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gc markers, leases and refs are untrusted objects too: each is read bounded, a bad one is named by its key and its
 * content is never quoted, and an object under {@code gc/running/} that is not a gc marker holds no push back.
 */
class RemoteMarkersTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);
  private static final byte[] SECRET = "{\"format\": SECRET-CONTENT-42}".getBytes(StandardCharsets.UTF_8);

  @TempDir Path temp;

  @Test
  void aPushIgnoresAndLogsObjectsUnderGcRunningThatAreNotMarkers() throws Exception {
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      files.put("cas/gc/running/notes.txt", SECRET);
      files.put("cas/gc/running/big.json", filled(1 << 20));
      files.put("cas/gc/running/lease.json", new Marker(Marker.LEASE, "x", null, Instant.now().toString(), null)
          .expiringAt(Instant.now().plusSeconds(600)).toJson());
      AtomicLong read = new AtomicLong();
      ByteArrayOutputStream log = new ByteArrayOutputStream();
      try (SyncSession session = new SyncSession(folder("data", "a"), null, new CasRemote(counting(files, read),
          "cas", 4), new PrintStream(log, true, StandardCharsets.UTF_8))) {
        Push.run(session, "latest", new Push.Options(false, "test@test"));
      }
      String text = log.toString(StandardCharsets.UTF_8);
      assertThat(text).contains("push: ignoring " + files.url("cas/gc/running/notes.txt")
          + ", which is not a gc marker: Cannot read " + files.url("cas/gc/running/notes.txt")
          + ": not a Quarry lease or gc marker (not JSON of that form)");
      assertThat(text).contains("push: ignoring " + files.url("cas/gc/running/big.json")
          + ", which is not a gc marker: Cannot read " + files.url("cas/gc/running/big.json")
          + ": it is larger than it may be (64 KiB)");
      assertThat(text).doesNotContain("SECRET").doesNotContain("lease.json");
      assertThat(read.get()).as("bytes read in all").isLessThan(200 << 10);
    }
  }

  @Test
  void gcNamesABadRefWithoutQuotingIt() throws Exception {
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      files.put("cas/refs/bad", SECRET);
      assertThatThrownBy(() -> gc(files, new AtomicLong())).hasMessage("Invalid ref bad: not a Quarry ref (not JSON"
          + " of that form)");
    }
  }

  @Test
  void gcReadsAtMost64KiBOfARef() throws Exception {
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      files.put("cas/refs/big", filled(8 << 20));
      AtomicLong read = new AtomicLong();
      assertThatThrownBy(() -> gc(files, read)).hasMessage("Cannot read ref big: " + files.url("cas/refs/big")
          + " is larger than a ref may be (64 KiB)");
      assertThat(read.get()).isLessThan(200 << 10);
    }
  }

  @Test
  void gcReadsAtMost64KiBOfALeaseAndNamesABadOneWithoutQuotingIt() throws Exception {
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      files.put("cas/leases/big.json", filled(8 << 20));
      AtomicLong read = new AtomicLong();
      assertThatThrownBy(() -> gc(files, read)).hasMessage("Cannot read " + files.url("cas/leases/big.json")
          + ": it is larger than it may be (64 KiB)");
      assertThat(read.get()).isLessThan(200 << 10);

      files.put("cas/leases/big.json", SECRET);
      assertThatThrownBy(() -> gc(files, read)).hasMessage("Cannot read " + files.url("cas/leases/big.json")
          + ": not a Quarry lease or gc marker (not JSON of that form)");
    }
  }

  @Test
  void gcNamesABadLeaseDigestListWithoutQuotingIt() throws Exception {
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      files.put("cas/leases/p.json", new Marker(Marker.LEASE, "p", "sha256:" + "0".repeat(64),
          Instant.now().toString(), null).expiringAt(Instant.now().plusSeconds(600)).toJson());
      files.put("cas/leases/p.trees.gz", gzip("tree SECRET-CONTENT-42\n".getBytes(StandardCharsets.UTF_8)));
      assertThatThrownBy(() -> gc(files, new AtomicLong())).hasMessage("Cannot read "
          + files.url("cas/leases/p.trees.gz") + ": a line is not \"tree <hex>\" or \"blob <hex>\"");
      files.put("cas/leases/p.trees.gz", gzip(filled(8 << 20)));
      assertThatThrownBy(() -> gc(files, new AtomicLong())).hasMessage("Cannot read "
          + files.url("cas/leases/p.trees.gz") + ": a line is longer than \"tree <hex>\" or \"blob <hex>\"");
    }
  }

  private void gc(FileStore files, AtomicLong read) throws IOException {
    Path state = temp.resolve("gc");
    try (SyncSession session = new SyncSession(state, state, new CasRemote(counting(files, read), "cas", 4),
        QUIET)) {
      GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, Duration.ZERO));
    }
  }

  /** The store, counting every byte read from the bodies it returns. */
  private static DelegatingStore counting(FileStore files, AtomicLong read) {
    return new DelegatingStore(files) {
      @Override
      public InputStream get(String key) throws IOException {
        return new FilterInputStream(super.get(key)) {
          @Override
          public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
              read.incrementAndGet();
            }
            return b;
          }

          @Override
          public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
              read.addAndGet(n);
            }
            return n;
          }
        };
      }
    };
  }

  private static byte[] filled(int size) {
    byte[] bytes = new byte[size];
    Arrays.fill(bytes, (byte) 'x');
    return bytes;
  }

  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(bytes)) {
      out.write(data);
    }
    return bytes.toByteArray();
  }

  private Path folder(String name, String... files) throws IOException {
    Path folder = temp.resolve(name);
    for (String file : files) {
      Path path = folder.resolve(file);
      Files.createDirectories(path.getParent());
      Files.writeString(path, "content of " + file);
    }
    return folder;
  }
}
