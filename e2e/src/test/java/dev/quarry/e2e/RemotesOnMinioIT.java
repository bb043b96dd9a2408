package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remotes by name against a real S3 server, run as users run quarry (a process with only the environment each test
 * sets): a remote's AWS profile and endpoint, the default remote, and status gating a script.
 */
@ExtendWith(MinioExtension.class)
class RemotesOnMinioIT {
  private final MinioServer minio;
  private final String bucket;
  @TempDir Path temp;

  RemotesOnMinioIT(MinioServer minio) {
    this.minio = minio;
    this.bucket = minio.createBucket("remotes");
  }

  /** A machine's environment: a home with no ~/.aws, the user config under XDG_CONFIG_HOME, and {@code more}. */
  private Map<String, String> bare(String... more) throws Exception {
    Map<String, String> environment = new HashMap<>(Map.of("HOME", Files.createDirectories(temp.resolve("home"))
        .toString(), "XDG_CONFIG_HOME", temp.resolve("xdg").toString(), "LANG", "C.UTF-8",
        "AWS_EC2_METADATA_DISABLED", "true"));
    for (int index = 0; index < more.length; index += 2) {
      environment.put(more[index], more[index + 1]);
    }
    return environment;
  }

  private Path folder() throws Exception {
    Path data = Files.createDirectories(temp.resolve("data/images"));
    Files.writeString(data.resolve("1.jpg"), "one");
    Files.writeString(data.resolve("2.jpg"), "two");
    Files.writeString(data.getParent().resolve(".quarryignore"), "*.tmp\n");
    Files.writeString(data.resolve("scratch.tmp"), "ignored");
    return data.getParent();
  }

  private static CommandResult ok(CommandResult result) {
    assertThat(result.exitCode()).as(result.stdout() + result.stderr()).isZero();
    return result;
  }

  @Test
  void aRemotesProfileGivesEndpointRegionAndKeysOverTheVariablesAndTheDefaultNeedsNoRemote() throws Exception {
    Path credentials = Files.writeString(temp.resolve("credentials"), """
        [lab]
        aws_access_key_id = %s
        aws_secret_access_key = %s
        """.formatted(minio.accessKey(), minio.secretKey()));
    Path config = Files.writeString(temp.resolve("config"), """
        [profile lab]
        region = %s
        endpoint_url = %s
        """.formatted(MinioServer.REGION, minio.endpoint()));
    Map<String, String> environment = bare("AWS_CONFIG_FILE", config.toString(), "AWS_SHARED_CREDENTIALS_FILE",
        credentials.toString(), "AWS_ACCESS_KEY_ID", "wrong", "AWS_SECRET_ACCESS_KEY", "wrong");
    Path data = folder();

    ok(QuarryJar.runIn(data, environment, "remote", "add", "origin", "s3://" + bucket + "/cas", "--profile", "lab",
        "--default"));
    CommandResult pushed = ok(QuarryJar.runIn(temp, environment, "sync", "push", data.toString(), "-j", "8"));
    assertThat(pushed.stdout()).startsWith("push s3://" + bucket + "/cas/ sha256:")
        .as("the .quarryignore and two images, not scratch.tmp").contains(": 3 files, 12 B");
    assertThat(ok(QuarryJar.runIn(temp, environment, "sync", "status", data.toString(), "-q")).stdout()).isEmpty();

    Files.writeString(data.resolve("images/2.jpg"), "TWO");
    CommandResult differs = QuarryJar.runIn(temp, environment, "sync", "status", data.toString(), "--exit-code");
    assertThat(differs.exitCode()).as(differs.stderr()).isEqualTo(1);
    assertThat(differs.stdout()).contains("  modified: 1 path\n    images/2.jpg\n");
    assertThat(ok(QuarryJar.runIn(data, environment, "sync", "log")).stdout())
        .as("without a folder, the working folder's config").contains("latest");

    CommandResult unknown = QuarryJar.runIn(temp, environment, "sync", "status", data.toString(), "--remote",
        "orgin");
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.stderr()).endsWith("quarry: Unknown remote: orgin (known: origin; add one with quarry"
        + " remote add orgin s3://bucket/prefix)\n");
  }

  @Test
  void aUserRemotesEndpointWinsOverTheEnvironmentsAndAnyFolderUsesIt() throws Exception {
    Map<String, String> environment = bare("AWS_ENDPOINT_URL", "http://127.0.0.1:9", "AWS_ACCESS_KEY_ID",
        minio.accessKey(), "AWS_SECRET_ACCESS_KEY", minio.secretKey(), "AWS_REGION", MinioServer.REGION);
    Path data = folder();

    ok(QuarryJar.runIn(temp, environment, "remote", "add", "--global", "minio", "s3://" + bucket + "/global",
        "--endpoint", minio.endpoint().toString(), "--region", MinioServer.REGION));
    ok(QuarryJar.runIn(temp, environment, "remote", "add", "--global", "nas", "store"));
    assertThat(temp.resolve("xdg/quarry/config")).content().contains("[remote \"minio\"]",
        "    url = " + temp.resolve("store") + "\n");
    ok(QuarryJar.runIn(temp, environment, "sync", "push", data.toString(), "--remote", "minio"));
    Path copy = temp.resolve("copy");
    ok(QuarryJar.runIn(temp, environment, "sync", "pull", copy.toString(), "--remote", "minio"));
    assertThat(copy.resolve("images/2.jpg")).hasContent("two");
    assertThat(copy.resolve("images/scratch.tmp")).as("ignored, never pushed").doesNotExist();
  }
}
