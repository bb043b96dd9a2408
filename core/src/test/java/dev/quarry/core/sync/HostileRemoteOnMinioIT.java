package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.store.S3Store;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The hostile-remote suite against a real S3 server, plus what only S3 shows: a read stops early, mid-response. */
@ExtendWith(MinioExtension.class)
class HostileRemoteOnMinioIT extends HostileRemoteTest {
  private final MinioServer minio;
  private final AtomicLong bytesRead = new AtomicLong();

  HostileRemoteOnMinioIT(MinioServer minio) {
    this.minio = minio;
  }

  @Override
  ObjectStore openStore(Path root) {
    ObjectStore s3 = S3Store.open(minio.createBucket("hostile"), S3Settings.defaults()
        .withEndpoint(minio.endpoint()).withCredentials(minio.accessKey(), minio.secretKey()));
    return new DelegatingStore(s3) {
      @Override
      public InputStream get(String key) throws IOException {
        return new FilterInputStream(super.get(key)) {
          @Override
          public int read() throws IOException {
            int b = in.read();
            bytesRead.addAndGet(b < 0 ? 0 : 1);
            return b;
          }

          @Override
          public int read(byte[] buffer, int offset, int length) throws IOException {
            int read = in.read(buffer, offset, length);
            bytesRead.addAndGet(Math.max(read, 0));
            return read;
          }
        };
      }
    };
  }

  @Test
  void objectsLargerThanTheirDigestsAreReadOnlyToTheirDeclaredSizePlusOne() throws Exception {
    Digest claimed = Digest.of("6bytes".getBytes(StandardCharsets.UTF_8));
    hand.store().put(remote.layout().blobKey(claimed), new byte[64 << 20]);
    bytesRead.set(0);
    assertRefused(hand.tree(TreeEntry.file("big", 0644, claimed)).digest(),
        "big: " + hand.store().url(remote.layout().blobKey(claimed)) + " is larger than its digest declares (6 bytes)");

    Manifest small = hand.tree(TreeEntry.file("a", 0644, claimed));
    hand.store().put(remote.layout().treeKey(small.digest()), new byte[64 << 20]);
    assertRefused(hand.tree(TreeEntry.directory("sub", 0755, small.digest(), 1, 6)).digest(),
        "is larger than its digest declares (" + small.encodedLength() + " bytes)");
    assertThat(bytesRead.get()).as("bytes read from the remote").isLessThan(1 << 20);
  }
}
