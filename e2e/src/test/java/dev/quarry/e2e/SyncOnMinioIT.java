package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import dev.quarry.testkit.Toxiproxy;
import dev.quarry.testkit.ToxiproxyExtension;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/** {@code quarry sync} as users and worker pods run it: a separate process against a real S3 server. */
@ExtendWith({MinioExtension.class, ToxiproxyExtension.class})
class SyncOnMinioIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final MinioServer minio;
  private final String bucket;
  @TempDir Path temp;

  SyncOnMinioIT(MinioServer minio) {
    this.minio = minio;
    this.bucket = minio.createBucket("sync");
  }

  private Map<String, String> environment(URI endpoint) {
    return Map.of("QUARRY_S3_ENDPOINT", endpoint.toString(), "AWS_ACCESS_KEY_ID", minio.accessKey(),
        "AWS_SECRET_ACCESS_KEY", minio.secretKey(), "AWS_REGION", MinioServer.REGION);
  }

  private CommandResult quarry(String... args) throws Exception {
    return QuarryJar.run(temp, environment(minio.endpoint()), args);
  }

  private static JsonNode ok(CommandResult result) throws Exception {
    assertThat(result.exitCode()).as(result.stdout() + result.stderr()).isZero();
    return JSON.readTree(result.stdout());
  }

  private long keys(String prefix) {
    try (S3Client s3 = minio.client()) {
      return s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream().count();
    }
  }

  private static Path dataset(Path root, int files, int size) throws Exception {
    Random random = new Random(files);
    for (int i = 0; i < files; i++) {
      Path file = root.resolve("shard-" + i % 8 + "/" + i + ".bin");
      Files.createDirectories(file.getParent());
      byte[] bytes = new byte[size];
      random.nextBytes(bytes);
      Files.write(file, bytes);
    }
    return root;
  }

  private static Map<String, String> contents(Path root) throws Exception {
    Map<String, String> contents = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        String relative = root.relativize(file).toString();
        if (!relative.startsWith(".quarry/")) {
          contents.put(relative, java.util.HexFormat.of().formatHex(
              java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
        }
      }
    }
    return contents;
  }

  @Test
  void aPushKilledMidwayLeavesNoManifestAndTheNextPushUploadsOnlyTheRest(Toxiproxy toxiproxy) throws Exception {
    Path data = dataset(temp.resolve("data"), 400, 16 << 10);
    String remote = "s3://" + bucket + "/cas/killed";
    Toxiproxy.Proxy slow = toxiproxy.proxy("slow-sync", minio.endpoint()).uploadBandwidth(512);
    Process push = QuarryJar.start(temp, environment(slow.endpoint()), "sync", "push", data.toString(), "--remote",
        remote, "--requests-in-flight", "4");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (keys("cas/killed/blobs/") < 40 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(push.isAlive()).as("the push is still uploading blobs when killed").isTrue();
    push.destroyForcibly(); // SIGKILL: no cleanup runs
    assertThat(push.waitFor(30, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(2000); // requests the proxy had already buffered may still land
    long uploaded = keys("cas/killed/blobs/");
    assertThat(uploaded).isBetween(40L, 399L);
    assertThat(keys("cas/killed/trees/")).as("no manifest before its whole subtree").isZero();
    assertThat(keys("cas/killed/refs/")).isZero();

    JsonNode resumed = ok(quarry("sync", "push", data.toString(), "--remote", remote, "--json"));
    assertThat(resumed.at("/missingRemote/objects").asLong()).as("the rest of the blobs and the 9 manifests")
        .isEqualTo(400 - uploaded + 9);
    assertThat(resumed.at("/transferred/objects").asLong()).isEqualTo(400 - uploaded + 9);
    assertThat(resumed.at("/hashedFiles").asLong()).as("the killed push's scan was kept").isZero();

    Path copy = temp.resolve("copy");
    JsonNode pulled = ok(quarry("sync", "pull", copy.toString(), "--remote", remote, "--json"));
    assertThat(pulled.at("/transferred/objects").asLong()).isEqualTo(400);
    assertThat(contents(copy)).isEqualTo(contents(data));

    JsonNode gc = ok(quarry("sync", "gc", "--remote", remote, "--json", "--state-dir",
        temp.resolve("gc").toString()));
    assertThat(gc.at("/unreachable/objects").asLong()).isZero();
  }

  @Test
  void statusPrintsWhatIsMissingAndHowItLookedAndErrorsSayWhatToDo() throws Exception {
    Path data = dataset(temp.resolve("data"), 50, 1000);
    String remote = "s3://" + bucket + "/cas/status";
    CommandResult before = quarry("sync", "status", data.toString(), "--remote", remote);
    assertThat(before.exitCode()).as(before.stderr()).isZero();
    assertThat(before.stdout()).contains("missing on the remote: 59 objects").contains("lookup: ");
    assertThat(before.stderr()).contains("scanned " + data.toAbsolutePath() + ": 50 files, 9 folders, 50 hashed");

    CommandResult push = quarry("sync", "push", data.toString(), "--remote", remote);
    assertThat(push.exitCode()).as(push.stderr()).isZero();
    assertThat(push.stderr()).contains("push: 59/59 objects").contains("push: ref latest -> sha256:");
    JsonNode after = ok(quarry("sync", "status", data.toString(), "--remote", remote, "--json"));
    assertThat(after.at("/missingRemote/objects").asLong()).isZero();
    assertThat(after.at("/requests/get").asLong()).as("generation, ref, its version's top object").isEqualTo(3);
    assertThat(after.at("/strategy/name").asText()).isEqualTo("none");

    CommandResult missing = quarry("sync", "pull", temp.resolve("x").toString(), "--remote", remote, "--version",
        "v9");
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.stderr()).contains("quarry: Cannot find version v9: s3://" + bucket
        + "/cas/status/refs/v9 does not exist");
    CommandResult badRef = quarry("sync", "push", data.toString(), "--remote", remote, "--ref", "../up");
    assertThat(badRef.exitCode()).isEqualTo(1);
    assertThat(badRef.stderr()).contains("quarry: Invalid ref name: ../up");
    CommandResult badGrace = quarry("sync", "gc", "--remote", remote, "--grace-period", "1d");
    assertThat(badGrace.stderr()).contains("quarry: Invalid duration: 1d (must be like 24h");
  }
}
