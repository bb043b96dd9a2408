package dev.quarry.testkit;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * One {@link KubeApi} (a real API server with Quarry's CRDs) per test class. Tests receive the {@link KubeApi} or its
 * {@link KubernetesClient} as parameters.
 */
public final class KubeApiExtension extends PerClassServerExtension<KubeApi> {
  public KubeApiExtension() {
    super(KubeApi.class);
  }

  @Override
  KubeApi start() throws Exception {
    return KubeApi.startWithQuarryCrds();
  }

  @Override
  boolean provides(Class<?> type) {
    return type == KubeApi.class || type == KubernetesClient.class;
  }

  @Override
  Object provide(KubeApi api, Class<?> type) {
    return type == KubeApi.class ? api : api.client();
  }
}
