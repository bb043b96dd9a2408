package dev.quarry.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.MinioExtension;
import dev.quarry.testkit.MinioServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * How {@code quarry} finds its S3 store and credentials, run as users run it, with nothing in its environment but
 * what each test sets: the standard AWS variables and profile files are honoured, a spec's store is used, and a
 * missing credential or bucket is one line that says what to do.
 */
@ExtendWith(MinioExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3ConnectionIT {
  private final MinioServer minio;
  private final String bucket;
  @TempDir Path temp;
  @TempDir static Path dataset;

  S3ConnectionIT(MinioServer minio) {
    this.minio = minio;
    this.bucket = minio.createBucket("conn");
  }

  @BeforeAll
  void uploadTwoShards() throws Exception {
    CommandResult gen = QuarryJar.run(dataset, "gen", "--out", "in", "--shards", "2", "--records", "10",
        "--image-size", "1Ki");
    assertThat(gen.exitCode()).as(gen.stderr()).isZero();
    try (S3Client s3 = minio.client(); var files = Files.list(dataset.resolve("in"))) {
      for (Path file : files.toList()) {
        s3.putObject(b -> b.bucket(bucket).key("in/" + file.getFileName()), RequestBody.fromFile(file));
      }
    }
  }

  /** A machine's environment: a home with no ~/.aws, a UTF-8 locale, and {@code more}. */
  private Map<String, String> bare(String... more) throws Exception {
    Map<String, String> environment = new HashMap<>(Map.of("HOME", Files.createDirectories(temp.resolve("home"))
        .toString(), "LANG", "C.UTF-8", "AWS_EC2_METADATA_DISABLED", "true"));
    for (int index = 0; index < more.length; index += 2) {
      environment.put(more[index], more[index + 1]);
    }
    return environment;
  }

  private String[] sortRun(String output, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("sort", "run", "--input",
        "s3://" + bucket + "/in/train-{000000..000001}.tar", "--output", "s3://" + bucket + "/" + output
            + "/x-{00..}.tar", "--shard-count", "1"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  private List<String> keys(String prefix) {
    try (S3Client s3 = minio.client()) {
      return s3.listObjectsV2(b -> b.bucket(bucket).prefix(prefix)).contents().stream().map(S3Object::key).toList();
    }
  }

  /** Exit code 1 and one line, after the progress lines a command may print before it fails. */
  private static void assertOneLine(CommandResult result) {
    assertThat(result.exitCode()).as(result.stderr()).isEqualTo(1);
    List<String> lines = result.stderr().lines().toList();
    assertThat(lines).as(result.stderr()).filteredOn(line -> line.startsWith("quarry: ")).hasSize(1);
    assertThat(lines.getLast()).startsWith("quarry: ");
    assertThat(result.stderr()).doesNotContain("\tat ", "Exception");
  }

  @Test
  void noCredentialsIsOneLineThatSaysWhatToSet() throws Exception {
    Map<String, String> environment = bare("QUARRY_S3_ENDPOINT", minio.endpoint().toString());
    for (String[] args : List.of(sortRun("nocreds"),
        new String[] {"sync", "push", dataset.resolve("in").toString(), "--remote", "s3://" + bucket + "/cas"},
        new String[] {"sort", "clean", "--job", "0".repeat(64), "--scratch", "s3://" + bucket + "/scratch/"})) {
      CommandResult result = QuarryJar.runIn(temp, environment, args);

      assertOneLine(result);
      assertThat(result.stderr()).contains("no S3 credentials", "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
          "AWS_PROFILE", "~/.aws/credentials");
    }
  }

  @Test
  void theStandardEndpointVariablesAreHonoured() throws Exception {
    for (String variable : List.of("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")) {
      CommandResult result = QuarryJar.runIn(temp, bare(variable, minio.endpoint().toString(),
          "AWS_ACCESS_KEY_ID", minio.accessKey(), "AWS_SECRET_ACCESS_KEY", minio.secretKey()),
          sortRun("by-" + variable));

      assertThat(result.exitCode()).as(result.stderr()).isZero();
      assertThat(keys("by-" + variable + "/")).contains("by-" + variable + "/x-00.tar");
    }
  }

  @Test
  void aProfileOfTheSharedFilesGivesCredentialsEndpointAndRegion() throws Exception {
    Path credentials = Files.writeString(temp.resolve("credentials"), """
        [default]
        aws_access_key_id = wrong
        aws_secret_access_key = wrong

        [lab]
        aws_access_key_id = %s
        aws_secret_access_key = %s
        """.formatted(minio.accessKey(), minio.secretKey()));
    Path config = Files.writeString(temp.resolve("config"), """
        [profile lab]
        region = %s
        endpoint_url = %s
        """.formatted(MinioServer.REGION, minio.endpoint()));

    CommandResult result = QuarryJar.runIn(temp, bare("AWS_PROFILE", "lab", "AWS_CONFIG_FILE", config.toString(),
        "AWS_SHARED_CREDENTIALS_FILE", credentials.toString()), sortRun("by-profile"));

    assertThat(result.exitCode()).as(result.stderr()).isZero();
    assertThat(keys("by-profile/")).contains("by-profile/x-00.tar");
  }

  /**
   * A worker pod's environment where the admin does not allow ambient credentials: with no Secret's keys, the
   * profile and the session variables (which would work) are not used, and the refusal says which settings sign.
   */
  @Test
  void withoutAmbientCredentialsAWorkerSendsUnsignedRequestsWhateverTheProfileGives() throws Exception {
    Path credentials = Files.writeString(temp.resolve("credentials-ambient"), """
        [default]
        aws_access_key_id = %s
        aws_secret_access_key = %s
        """.formatted(minio.accessKey(), minio.secretKey()));
    Map<String, String> environment = bare("QUARRY_S3_ENDPOINT", minio.endpoint().toString(),
        "AWS_SHARED_CREDENTIALS_FILE", credentials.toString(), "QUARRY_S3_AMBIENT_CREDENTIALS", "false");
    CommandResult refused = QuarryJar.runIn(temp, environment, sortRun("anonymous"));

    assertOneLine(refused);
    assertThat(refused.stderr()).contains("(HTTP 403)", "the request was unsigned",
        "QUARRY_S3_AMBIENT_CREDENTIALS=false", "name a credentialsSecret in the resource's store",
        "chart value ambientCredentials");
    assertThat(keys("anonymous/")).isEmpty();

    environment.remove("QUARRY_S3_AMBIENT_CREDENTIALS");
    CommandResult person = QuarryJar.runIn(temp, environment, sortRun("by-default-profile"));
    assertThat(person.exitCode()).as("a person's quarry keeps the profile: " + person.stderr()).isZero();
  }

  @Test
  void theSpecsStoreIsUsedByRunAndEveryPhase() throws Exception {
    Path spec = Files.writeString(temp.resolve("job.yaml"), """
        apiVersion: quarry.dev/v1alpha1
        kind: ShardSortJob
        metadata:
          name: by-spec
        spec:
          store:
            endpoint: %s
            region: %s
            credentialsSecret:
              name: ignored-on-the-command-line
          input:
            template: s3://%s/in/train-{000000..000001}.tar
          output:
            template: s3://%s/by-spec/x-{00..}.tar
            shardCount: 1
          order:
            kind: md5
          scratch: s3://%s/scratch/by-spec/
        """.formatted(minio.endpoint(), MinioServer.REGION, bucket, bucket, bucket));
    Map<String, String> environment = bare("AWS_ACCESS_KEY_ID", minio.accessKey(), "AWS_SECRET_ACCESS_KEY",
        minio.secretKey());

    for (List<String> phase : List.of(List.of("extract", "--index", "0", "--count", "1"),
        List.of("plan", "--extract-count", "1"), List.of("create", "--index", "0", "--count", "1"),
        List.of("commit"))) {
      List<String> args = new java.util.ArrayList<>(List.of("sort", phase.getFirst(), "--spec", spec.toString()));
      args.addAll(phase.subList(1, phase.size()));
      CommandResult result = QuarryJar.runIn(temp, environment, args.toArray(String[]::new));
      assertThat(result.exitCode()).as(phase + ": " + result.stderr()).isZero();
    }
    assertThat(keys("by-spec/")).contains("by-spec/x-00.tar", "by-spec/x.manifest.json");
  }

  @Test
  void aBucketThatDoesNotExistIsNamedWithTheEndpoint() throws Exception {
    Map<String, String> environment = bare("QUARRY_S3_ENDPOINT", minio.endpoint().toString(), "AWS_ACCESS_KEY_ID",
        minio.accessKey(), "AWS_SECRET_ACCESS_KEY", minio.secretKey());

    CommandResult push = QuarryJar.runIn(temp, environment, "sync", "push", dataset.resolve("in").toString(),
        "--remote", "s3://no-such-bucket/cas");

    assertOneLine(push);
    assertThat(push.stderr()).contains("\nquarry: Cannot use s3://no-such-bucket: bucket no-such-bucket does not"
        + " exist on " + minio.endpoint()).doesNotContain("leases");
  }
}
