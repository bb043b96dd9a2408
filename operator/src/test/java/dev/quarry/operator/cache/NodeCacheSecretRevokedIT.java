package dev.quarry.operator.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.api.common.ObjectStore;
import dev.quarry.api.common.SecretKeys;
import dev.quarry.api.nodecache.CachePhase;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.api.nodecache.NodeCacheSpec;
import dev.quarry.operator.testing.FakeKubelet;
import dev.quarry.operator.testing.Manifests;
import dev.quarry.operator.testing.RunningOperator;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admin narrows {@code nodeCache.credentialsSecrets} (a chart upgrade restarts the operator): the agents of a
 * NodeCache naming a Secret no longer listed lose its keys, though the operator otherwise leaves a refused
 * NodeCache's agents as they are, and get the narrowed list, so that they refuse the spec themselves.
 */
@ExtendWith(KubeApiExtension.class)
class NodeCacheSecretRevokedIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private final KubeApi api;

  NodeCacheSecretRevokedIT(KubeApi api) {
    this.api = api;
  }

  @Test
  void agentsLoseTheKeysOfASecretTheAdminNoLongerLists() throws Exception {
    KubernetesClient client = api.client();
    String namespace = api.createNamespace("quarry-system");
    new FakeKubelet(client).prepareNamespace(namespace);
    NodeCache cache = Manifests.example(client, "nodecache.yaml", NodeCache.class, null, "revoked");
    cache.getMetadata().setNamespace(null);
    NodeCacheSpec spec = cache.getSpec();
    cache.setSpec(new NodeCacheSpec(spec.nodeSelector(), spec.tolerations(), "/mnt/quarry/revoked", spec.cache(),
        spec.images(), spec.policy(), new ObjectStore(null, null, null, new SecretKeys("cache-keys", null, null))));

    try (RunningOperator listing = RunningOperator.start(api, namespace, "listing-operator",
        Map.of(NodeCacheSecrets.ENVIRONMENT_VARIABLE, "cache-keys"))) {
      client.resource(cache).create();
      DaemonSet withKeys = awaitDaemonSet(client, namespace, d -> !secretNames(d).isEmpty());
      assertThat(secretNames(withKeys)).containsOnly("cache-keys");
    }
    try (RunningOperator narrowed = RunningOperator.start(api, namespace, "narrowed-operator", Map.of())) {
      await().atMost(WAIT).until(() -> client.resources(NodeCache.class).withName("revoked").get().getStatus(),
          s -> s != null && s.phase() == CachePhase.Degraded && "SecretNotAllowed".equals(
              s.conditions().get(0).getReason()));
      DaemonSet revoked = awaitDaemonSet(client, namespace, d -> secretNames(d).isEmpty());
      Map<String, String> env = new java.util.HashMap<>();
      container(revoked).getEnv().stream().filter(v -> v.getValue() != null)
          .forEach(v -> env.put(v.getName(), v.getValue()));
      assertThat(NodeCacheSecrets.fromEnvironment(env)).as("the agents refuse the spec themselves")
          .isEqualTo(NodeCacheSecrets.NONE);
      assertThat(HostPathRoots.fromEnvironment(env)).isEqualTo(HostPathRoots.DEFAULTS);
    }
    try (RunningOperator listingAgain = RunningOperator.start(api, namespace, "relisting-operator",
        Map.of(NodeCacheSecrets.ENVIRONMENT_VARIABLE, "cache-keys"))) {
      assertThat(secretNames(awaitDaemonSet(client, namespace, d -> !secretNames(d).isEmpty())))
          .as("listed again, the agents get the keys back").containsOnly("cache-keys");
    }
  }

  private static DaemonSet awaitDaemonSet(KubernetesClient client, String namespace, Predicate<DaemonSet> condition) {
    return await().atMost(WAIT).until(() -> client.apps().daemonSets().inNamespace(namespace)
        .withName("quarry-agent-revoked").get(), d -> d != null && condition.test(d));
  }

  private static io.fabric8.kubernetes.api.model.Container container(DaemonSet daemonSet) {
    return daemonSet.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  private static List<String> secretNames(DaemonSet daemonSet) {
    return container(daemonSet).getEnv().stream()
        .filter(v -> v.getValueFrom() != null && v.getValueFrom().getSecretKeyRef() != null)
        .map(EnvVar::getValueFrom).map(from -> from.getSecretKeyRef().getName()).toList();
  }
}
