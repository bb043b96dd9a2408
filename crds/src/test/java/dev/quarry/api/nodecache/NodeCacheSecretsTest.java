package dev.quarry.api.nodecache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.SecretKeys;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeCacheSecretsTest {
  private static NodeCacheSpec naming(String secret) {
    return new NodeCacheSpec(null, null, null, null, List.of(), null,
        new ObjectStore(null, null, null, secret == null ? null : new SecretKeys(secret, null, null)));
  }

  @Test
  void onlyTheListedSecretsMayBeNamed() {
    NodeCacheSecrets listed = NodeCacheSecrets.fromEnvironment(Map.of(NodeCacheSecrets.ENVIRONMENT_VARIABLE,
        " s3-credentials, cache-keys ,"));
    assertThat(listed.names()).containsExactly("s3-credentials", "cache-keys");
    assertThat(NodeCacheSecrets.fromEnvironment(Map.of(NodeCacheSecrets.ENVIRONMENT_VARIABLE,
        listed.toEnvironment()))).isEqualTo(listed);
    assertThat(listed.refusal(naming("cache-keys"))).isEmpty();
    assertThat(listed.refusal(naming(null))).as("no Secret: nothing to refuse").isEmpty();
    assertThat(listed.refusal(naming("quarry-operator-token"))).contains("Invalid spec.store.credentialsSecret.name:"
        + " quarry-operator-token (must be one of the Secrets the cluster admin lets NodeCaches use, in the chart"
        + " value nodeCache.credentialsSecrets: s3-credentials, cache-keys)");
  }

  @Test
  void anEmptyListAllowsNone() {
    assertThat(NodeCacheSecrets.fromEnvironment(Map.of())).isEqualTo(NodeCacheSecrets.NONE);
    assertThat(NodeCacheSecrets.NONE.refusal(naming("s3-credentials"))).contains("Invalid"
        + " spec.store.credentialsSecret.name: s3-credentials (must be one of the Secrets the cluster admin lets"
        + " NodeCaches use, in the chart value nodeCache.credentialsSecrets: none listed)");
  }
}
