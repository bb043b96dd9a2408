package dev.quarry.api.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EndpointAllowlistTest {
  private final EndpointAllowlist allowlist = EndpointAllowlist.fromEnvironment(
      Map.of(EndpointAllowlist.ENVIRONMENT_VARIABLE, "http://minio.storage:9000/, https://s3.example.com"));

  @Test
  void allowsTheListedEndpointsAndPathsBelowThem() {
    assertThat(allowlist.allows("http://minio.storage:9000")).isTrue();
    assertThat(allowlist.allows("http://minio.storage:9000/tenant-a")).isTrue();
    assertThat(allowlist.allows("https://s3.example.com")).isTrue();
    assertThat(allowlist.allows(null)).as("AWS S3, from the region").isTrue();
  }

  @Test
  void refusesLookAlikesAndNamesTheFieldAndTheList() {
    assertThat(allowlist.allows("http://minio.storage:9000.evil.example")).isFalse();
    assertThat(allowlist.allows("http://minio.storage:9000@10.0.0.1")).isFalse();
    assertThat(allowlist.allows("http://169.254.169.254")).isFalse();
    assertThat(allowlist.refusal(new ObjectStore("http://10.0.0.1:8080", null, null, null))).contains(
        "Invalid spec.store.endpoint: http://10.0.0.1:8080 (must be one of the endpoints the cluster admin allows:"
            + " http://minio.storage:9000, https://s3.example.com)");
  }

  @Test
  void aPathBelowAnAllowedOneMustNotClimbOutOfIt() {
    EndpointAllowlist tenantA = EndpointAllowlist.fromEnvironment(
        Map.of(EndpointAllowlist.ENVIRONMENT_VARIABLE, "http://gw/tenant-a"));
    assertThat(tenantA.allows("http://gw/tenant-a/bucket")).isTrue();
    assertThat(tenantA.allows("http://gw/tenant-a/../tenant-b")).isFalse();
    assertThat(tenantA.allows("http://gw/tenant-a/./../tenant-b")).isFalse();
    assertThat(tenantA.allows("http://gw/tenant-a/%2e%2e/tenant-b")).isFalse();
    assertThat(tenantA.allows("http://gw/tenant-a/x?y=1")).isFalse();
    assertThat(tenantA.allows("http://gw/tenant-a/x#y")).isFalse();
  }

  @Test
  void anEmptyListAllowsAnyEndpoint() {
    assertThat(EndpointAllowlist.fromEnvironment(Map.of()).allows("http://10.0.0.1")).isTrue();
    assertThat(EndpointAllowlist.ANY.refusal(new ObjectStore("http://10.0.0.1", null, null, null))).isEmpty();
  }
}
