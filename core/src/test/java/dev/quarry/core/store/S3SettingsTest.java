package dev.quarry.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class S3SettingsTest {
  @Test
  void defaultsAreAwsInUsEast1WithTheDefaultChain() {
    assertThat(S3Settings.fromEnvironment(Map.of())).isEqualTo(new S3Settings(null, "us-east-1", true, null, null,
        64, 8 << 20, 8, java.time.Duration.ofSeconds(30)));
  }

  @Test
  void theEnvironmentOverridesTheDefaults() {
    S3Settings settings = S3Settings.fromEnvironment(Map.of("QUARRY_S3_ENDPOINT", "http://minio:9000",
        "AWS_REGION", "eu-west-3", "QUARRY_S3_PATH_STYLE", "FALSE", "AWS_ACCESS_KEY_ID", "id",
        "AWS_SECRET_ACCESS_KEY", "secret", "QUARRY_S3_REQUESTS_IN_FLIGHT", "16",
        "QUARRY_S3_REQUEST_DEADLINE", "2m"));

    assertThat(settings).isEqualTo(new S3Settings(URI.create("http://minio:9000"), "eu-west-3", false, "id",
        "secret", 16, 8 << 20, 8, java.time.Duration.ofMinutes(2)));
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
