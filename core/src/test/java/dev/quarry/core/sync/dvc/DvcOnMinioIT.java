package dev.quarry.core.sync.dvc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.store.S3Store;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The real DVC 3 pushes to MinIO; Quarry imports from that bucket into another prefix, pulls, and every byte matches. */
@ExtendWith(MinioExtension.class)
class DvcOnMinioIT {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  private final MinioServer minio;
  @TempDir Path temp;

  DvcOnMinioIT(MinioServer minio) {
    this.minio = minio;
  }

  @Test
  void aFolderDvcPushedToS3ImportsReusingWhatQuarryHoldsAndPullsByteForByte() throws Exception {
    String bucket = minio.createBucket("dvc");
    RealDvc dvc = new RealDvc(temp.resolve("project"), Map.of("AWS_ACCESS_KEY_ID", minio.accessKey(),
        "AWS_SECRET_ACCESS_KEY", minio.secretKey(), "AWS_DEFAULT_REGION", MinioServer.REGION));
    Path data = dvc.dataset("images", 60, 2);
    dvc.dvc("add", "-q", "images");
    dvc.dvc("remote", "add", "-d", "minio", "s3://" + bucket + "/dvcstore");
    dvc.dvc("remote", "modify", "minio", "endpointurl", minio.endpoint().toString());
    dvc.dvc("push", "-q");

    try (ObjectStore store = S3Store.open(bucket, S3Settings.defaults().withEndpoint(minio.endpoint())
            .withCredentials(minio.accessKey(), minio.secretKey()));
        SyncSession session = new SyncSession(Files.createDirectories(temp.resolve("work")), temp.resolve("state"),
            new CasRemote(store, "quarry/images", 16), QUIET)) {
      DvcFile source = DvcFile.read(dvc.project().resolve("images.dvc"));
      DvcImport.Result first = DvcImport.run(store, "dvcstore", session, source, "v1", "tester");
      RealDvc.assertPulledEqual(session.remote(), "v1", data, temp.resolve("pulled"));

      // One file changed and one added: the second import copies those two and reuses every other blob.
      Files.write(data.resolve("part-0/f4"), new byte[] {1, 2, 3});
      Files.writeString(data.resolve("part-3/new.txt"), "new");
      dvc.dvc("add", "-q", "images");
      dvc.dvc("push", "-q");
      DvcImport.Result second = DvcImport.run(store, "dvcstore", session,
          DvcFile.read(dvc.project().resolve("images.dvc")), "v2", "tester");

      assertThat(second.copiedBlobs()).isEqualTo(2);
      assertThat(second.reusedBlobs()).isEqualTo(first.copiedBlobs() - 1);
      assertThat(second.quarryRequests().put()).isLessThan(20); // 2 blobs, a few manifests, lease, ref, log
      RealDvc.assertPulledEqual(session.remote(), "v2", data, temp.resolve("pulled-v2"));
    }
  }

  @Test
  void statusAndPullReadStraightFromWhatDvcPushedToS3() throws Exception {
    String bucket = minio.createBucket("dvc-direct");
    RealDvc dvc = new RealDvc(temp.resolve("project"), Map.of("AWS_ACCESS_KEY_ID", minio.accessKey(),
        "AWS_SECRET_ACCESS_KEY", minio.secretKey(), "AWS_DEFAULT_REGION", MinioServer.REGION));
    Files.writeString(dvc.project().resolve(".dvcignore"), ".quarry/\n"); // Quarry's state stays out of DVC's
    Path data = dvc.dataset("images", 60, 4);
    dvc.dvc("add", "-q", "images");
    dvc.dvc("remote", "add", "-d", "minio", "s3://" + bucket + "/dvcstore");
    dvc.dvc("remote", "modify", "minio", "endpointurl", minio.endpoint().toString());
    dvc.dvc("push", "-q");
    Path dvcFile = dvc.project().resolve("images.dvc");

    try (ObjectStore store = S3Store.open(bucket, S3Settings.defaults().withEndpoint(minio.endpoint())
        .withCredentials(minio.accessKey(), minio.secretKey()))) {
      assertThat(RealDvc.statusFromDvc(store, "dvcstore", dvcFile, data).differs()).isFalse();
      Path pulled = temp.resolve("pulled");
      SyncResult first = RealDvc.pullFromDvc(store, "dvcstore", dvcFile, data, pulled);
      assertThat(first.files()).isEqualTo(61);

      // A file DVC has not pushed yet: status says the DVC remote lacks it, until dvc push.
      Files.writeString(pulled.resolve("part-1/extra.txt"), "extra");
      SyncResult local = RealDvc.statusFromDvc(store, "dvcstore", dvcFile, pulled);
      assertThat(local.changes().added().paths()).containsExactly("part-1/extra.txt");
      assertThat(local.changes().notOnRemote().paths()).containsExactly("part-1/extra.txt");
      assertThat(local.missingRemote().bytes()).isEqualTo(5);
      assertThat(local.requests().head()).isEqualTo(1);

      Files.write(data.resolve("part-0/f4"), new byte[] {1, 2, 3});
      dvc.dvc("add", "-q", "images");
      dvc.dvc("push", "-q");
      Files.delete(pulled.resolve("part-1/extra.txt"));
      SyncResult update = RealDvc.pullFromDvc(store, "dvcstore", dvcFile, data, pulled);
      assertThat(update.transferred().objects()).isEqualTo(1);
    }
  }
}
