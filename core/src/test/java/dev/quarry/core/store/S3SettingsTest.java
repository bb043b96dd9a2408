package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class S3SettingsTest {
  @TempDir Path temp;

  @Test
  void theStandardAwsEndpointVariablesAreHonouredTheServiceSpecificOneFirst() {
    assertThat(S3Settings.fromEnvironment(Map.of("AWS_ENDPOINT_URL", "http://all:9000")).endpoint())
        .isEqualTo(URI.create("http://all:9000"));
    assertThat(S3Settings.fromEnvironment(Map.of("AWS_ENDPOINT_URL", "http://all:9000",
        "AWS_ENDPOINT_URL_S3", "http://s3:9000")).endpoint()).isEqualTo(URI.create("http://s3:9000"));
    assertThat(S3Settings.fromEnvironment(Map.of("AWS_ENDPOINT_URL", "http://all:9000",
        "AWS_ENDPOINT_URL_S3", "http://s3:9000", "QUARRY_S3_ENDPOINT", "http://quarry:9000")).endpoint())
        .as("Quarry's own variable first").isEqualTo(URI.create("http://quarry:9000"));
    assertThat(S3Settings.fromEnvironment(Map.of("AWS_DEFAULT_REGION", "eu-north-1")).region())
        .isEqualTo("eu-north-1");
    assertThat(S3Settings.fromEnvironment(Map.of("AWS_DEFAULT_REGION", "eu-north-1", "AWS_REGION", "ap-south-1"))
        .region()).isEqualTo("ap-south-1");
  }

  @Test
  void theProfileOfTheSharedConfigFileGivesRegionAndEndpoint() throws Exception {
    Path config = Files.writeString(temp.resolve("config"), """
        [default]
        region = us-west-1

        [profile dev]
        region = eu-west-3
        endpoint_url = http://profile:9000
        """);
    Map<String, String> environment = Map.of("AWS_CONFIG_FILE", config.toString(), "AWS_PROFILE", "dev");

    S3Settings settings = S3Settings.fromEnvironment(environment);

    assertThat(settings.endpoint()).isEqualTo(URI.create("http://profile:9000"));
    assertThat(settings.region()).isEqualTo("eu-west-3");
    assertThat(S3Settings.fromEnvironment(Map.of("AWS_CONFIG_FILE", config.toString())).region())
        .as("the default profile").isEqualTo("us-west-1");
    Map<String, String> overridden = new HashMap<>(environment);
    overridden.putAll(Map.of("AWS_REGION", "ap-south-1", "AWS_ENDPOINT_URL", "http://variable:9000"));
    assertThat(S3Settings.fromEnvironment(overridden)).as("variables over the profile")
        .extracting(S3Settings::endpoint, S3Settings::region)
        .containsExactly(URI.create("http://variable:9000"), "ap-south-1");
  }

  @Test
  void aRemotesProfileTakesAwsProfilesPlaceAndItsCredentialsWinOverTheVariables() throws Exception {
    Path config = Files.writeString(temp.resolve("config"), """
        [profile lab]
        region = eu-west-3
        endpoint_url = http://lab:9000
        """);
    Map<String, String> environment = Map.of("AWS_CONFIG_FILE", config.toString(), "AWS_PROFILE", "other",
        "AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "secret");

    S3Settings settings = S3Settings.forProfile(environment, "lab");

    assertThat(settings).extracting(S3Settings::endpoint, S3Settings::region, S3Settings::profile,
        S3Settings::accessKeyId).containsExactly(URI.create("http://lab:9000"), "eu-west-3", "lab", null);
    Map<String, String> endpointVariables = new HashMap<>(environment);
    endpointVariables.put("AWS_ENDPOINT_URL_S3", "http://variable:9000");
    assertThat(S3Settings.forProfile(endpointVariables, "lab").endpoint()).as("the variables still come first")
        .isEqualTo(URI.create("http://variable:9000"));
    assertThatThrownBy(() -> S3Settings.forProfile(environment, "lba"))
        .hasMessage("Invalid AWS profile: lba (must be a profile in " + config + ")");
  }

  @Test
  void theProfilesServicesSectionGivesTheS3EndpointFirst() throws Exception {
    Files.createDirectories(temp.resolve(".aws"));
    Files.writeString(temp.resolve(".aws/config"), """
        [default]
        endpoint_url = http://everything:9000
        services = local

        [services local]
        s3 =
          endpoint_url = http://s3-only:9000
        """);

    assertThat(S3Settings.fromEnvironment(Map.of("HOME", temp.toString())).endpoint())
        .as("found under HOME, as the AWS CLI finds it").isEqualTo(URI.create("http://s3-only:9000"));
  }

  @Test
  void configuredEndpointsCanBeIgnoredAsAwsDocumentsIt() throws Exception {
    Path config = Files.writeString(temp.resolve("config"), "[default]\nendpoint_url = http://profile:9000\n");

    assertThat(S3Settings.fromEnvironment(Map.of("AWS_CONFIG_FILE", config.toString(), "AWS_ENDPOINT_URL",
        "http://variable:9000", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "true")).endpoint()).isNull();
  }

  @Test
  void aBadEndpointNamesWhereItCameFrom() throws Exception {
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("AWS_ENDPOINT_URL_S3", "minio:9000")))
        .hasMessage("Invalid AWS_ENDPOINT_URL_S3: minio:9000 (must be an http:// or https:// URL with a host)");
    Path config = Files.writeString(temp.resolve("config"), "[profile dev]\nendpoint_url = minio\n");
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("AWS_CONFIG_FILE", config.toString(),
        "AWS_PROFILE", "dev")))
        .hasMessage("Invalid endpoint_url of AWS profile dev in " + config + ": minio (must be an http:// or"
            + " https:// URL with a host)");
  }

  @Test
  void aSessionTokenLeavesTheCredentialsToTheDefaultChainWhichSendsIt() {
    assertThat(S3Settings.fromEnvironment(Map.of("AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "secret",
        "AWS_SESSION_TOKEN", "token")).accessKeyId()).isNull();
  }

  @Test
  void defaultsAreAwsInUsEast1WithTheDefaultChain() {
    assertThat(S3Settings.fromEnvironment(Map.of())).isEqualTo(new S3Settings(null, "us-east-1", true, null, null,
        true, 64, 8 << 20, 8, java.time.Duration.ofSeconds(30)));
  }

  @Test
  void theEnvironmentOverridesTheDefaults() {
    S3Settings settings = S3Settings.fromEnvironment(Map.of("QUARRY_S3_ENDPOINT", "http://minio:9000",
        "AWS_REGION", "eu-west-3", "QUARRY_S3_PATH_STYLE", "FALSE", "AWS_ACCESS_KEY_ID", "id",
        "AWS_SECRET_ACCESS_KEY", "secret", "QUARRY_S3_REQUESTS_IN_FLIGHT", "16",
        "QUARRY_S3_REQUEST_DEADLINE", "2m", "QUARRY_S3_AMBIENT_CREDENTIALS", "false"));

    assertThat(settings).isEqualTo(new S3Settings(URI.create("http://minio:9000"), "eu-west-3", false, "id",
        "secret", false, 16, 8 << 20, 8, java.time.Duration.ofMinutes(2)));
  }

  @Test
  void emptyVariablesCountAsUnset() {
    assertThat(S3Settings.fromEnvironment(Map.of("QUARRY_S3_ENDPOINT", "", "AWS_REGION", " ")))
        .isEqualTo(S3Settings.defaults());
  }

  @Test
  void badVariablesAreNamedInTheError() {
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("QUARRY_S3_PATH_STYLE", "yes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid QUARRY_S3_PATH_STYLE: yes (must be true or false)");
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("QUARRY_S3_REQUESTS_IN_FLIGHT", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid QUARRY_S3_REQUESTS_IN_FLIGHT: 0 (must be a whole number of at least 1)");
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("QUARRY_S3_REQUEST_DEADLINE", "1s")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid QUARRY_S3_REQUEST_DEADLINE: 1s (must be a duration of at least 3s, such as 30s or 2m)");
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("QUARRY_S3_ENDPOINT", "minio 9000")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid QUARRY_S3_ENDPOINT: minio 9000 (must be an http:// or https:// URL with a host)");
    assertThatThrownBy(() -> S3Settings.fromEnvironment(Map.of("AWS_ACCESS_KEY_ID", "id")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid S3 credentials: access key id id without a secret access key (must give both, or"
            + " neither for the default credential chain)");
  }

  @Test
  void valuesAreChecked() {
    S3Settings defaults = S3Settings.defaults();
    assertThatThrownBy(() -> defaults.withPartSizeBytes(1 << 20)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid S3 part size: 1048576 bytes (must be at least 5242880 bytes, 5 MiB)");
    assertThatThrownBy(() -> defaults.withMaxAttempts(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid S3 max attempts: 0 (must be at least 1)");
    assertThatThrownBy(() -> defaults.withRequestsInFlight(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid S3 requests in flight: 0 (must be at least 1)");
    assertThatThrownBy(() -> defaults.withRegion("")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid S3 region:  (must not be empty, for example us-east-1)");
    assertThatThrownBy(() -> defaults.withEndpoint(URI.create("ftp://host"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid S3 endpoint: ftp://host (must be an http:// or https:// URL with a host)");
  }

  @Test
  void theSecretIsNeverPrinted() {
    assertThat(S3Settings.defaults().withCredentials("my-id", "my-secret").toString())
        .contains("accessKeyId=my-id", "secretAccessKey=****").doesNotContain("my-secret");
  }
}
