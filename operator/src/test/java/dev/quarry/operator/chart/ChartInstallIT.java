package dev.quarry.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.quarry.api.nodecache.NodeCache;
import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.operator.QuarryOperator;
import dev.quarry.operator.runtime.OperatorSettings;
import dev.quarry.operator.testing.FakeKubelet;
import dev.quarry.operator.testing.Manifests;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.testkit.TestTools;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart installed by the real helm on a real API server (with RBAC), and the operator running as its
 * ServiceAccount with the Deployment's variables: what the chart grants is what the operator needs. With
 * watchNamespaces, the operator reconciles the namespaced kinds of those namespaces only, and NodeCaches still.
 */
@ExtendWith(KubeApiExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ChartInstallIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final KubeApi api;
  private final KubernetesClient client;
  private final Path chart = RepositoryRoot.find().resolve("charts/quarry");
  private final String release;
  private final String watched;
  private final String other;
  private final String installOutput;

  ChartInstallIT(KubeApi api) throws Exception {
    this.api = api;
    this.client = api.client();
    this.release = api.createNamespace("quarry-system");
    this.watched = api.createNamespace("ml");
    this.other = api.createNamespace("other");
    // The example NodeCache names the Secret s3-credentials, which only the admin's list lets it use.
    this.installOutput = helm("install", "quarry", chart.toString(), "--namespace", release,
        "--set", "watchNamespaces={" + watched + "}", "--set", "nodeCache.credentialsSecrets={s3-credentials}");
  }

  @Test
  void watchingSomeNamespacesTheOperatorReconcilesThoseAndNodeCachesWithTheChartsRightsOnly() throws Exception {
    FakeKubelet kubelet = new FakeKubelet(client);
    kubelet.prepareNamespace(watched);
    kubelet.prepareNamespace(other);
    try (KubernetesClient asOperator = serviceAccountClient("quarry-operator");
        QuarryOperator operator = QuarryOperator.start(asOperator, operatorSettings(), Clock.systemUTC())) {
      await().atMost(WAIT).until(() -> ready(operator));

      client.resource(Manifests.example(client, "shardsortjob-shuffle.yaml", ShardSortJob.class, watched, "shuffle"))
          .create();
      client.resource(Manifests.example(client, "shardsortjob-shuffle.yaml", ShardSortJob.class, other, "shuffle"))
          .create();
      await().atMost(WAIT).until(() -> client.resources(Job.class).inNamespace(watched)
          .withName("shuffle-extract").get() != null);

      NodeCache cache = Manifests.example(client, "nodecache.yaml", NodeCache.class, null, "chart-images");
      client.resource(cache).create();
      await().atMost(WAIT).until(() -> client.apps().daemonSets().inNamespace(release).list().getItems().stream()
          .anyMatch(ds -> ds.getMetadata().getName().endsWith("chart-images")));

      assertThat(client.resources(ShardSortJob.class).inNamespace(other).withName("shuffle").get().getStatus())
          .as("a namespace not watched is left alone").isNull();
      assertThat(client.resources(Job.class).inNamespace(other).list().getItems()).isEmpty();
      assertThat(ready(operator)).as("every informer works with the chart's rights").isTrue();
    }
  }

  @Test
  void theNotesUpgradeCommandsWorkAsPrinted() throws Exception {
    assertThat(installOutput).as("kubectl cannot apply a folder URL").doesNotContainPattern("https?://\\S+/crds/");
    assertThat(installOutput).contains(
        "helm pull <chart> --version <version> --untar --untardir /tmp/quarry-<version>",
        "kubectl apply --server-side --force-conflicts -f /tmp/quarry-<version>/quarry/crds/",
        "helm upgrade quarry <chart> --version <version> --namespace " + release + " --reuse-values");

    // helm pull --untar of the next version: the packaged chart, unpacked.
    Path work = Files.createTempDirectory("quarry-upgrade");
    helm("package", chart.toString(), "--destination", work.toString());
    Path untarred = Files.createDirectories(work.resolve("quarry-next"));
    CommandResult untar = CommandResult.run(work, List.of("tar", "-xzf", "quarry-0.1.0.tgz", "-C",
        untarred.toString()));
    assertThat(untar.exitCode()).as(untar.stderr()).isZero();
    // The CRDs have another field manager (helm, or whoever installed them first): without --force-conflicts every
    // changed field would be a conflict.
    CommandResult applied = api.kubectl("apply", "--server-side", "--force-conflicts", "-f",
        untarred.resolve("quarry/crds").toString() + "/");
    assertThat(applied.exitCode()).as(applied.stderr()).isZero();
    assertThat(applied.stdout()).contains("shardsortjobs.quarry.dev serverside-applied",
        "nodecaches.quarry.dev serverside-applied");
    helm("upgrade", "quarry", untarred.resolve("quarry").toString(), "--namespace", release, "--reuse-values");
  }

  private OperatorSettings operatorSettings() throws Exception {
    String manifest = helm("get", "manifest", "quarry", "--namespace", release);
    Deployment deployment = java.util.Arrays.stream(manifest.split("(?m)^---\\s*$"))
        .filter(doc -> doc.contains("kind: Deployment"))
        .map(doc -> client.getKubernetesSerialization().unmarshal(doc, Deployment.class))
        .findFirst().orElseThrow();
    Map<String, String> env = new HashMap<>();
    for (EnvVar variable : deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv()) {
      env.put(variable.getName(), variable.getValue());
    }
    // What the kubelet fills from fieldRefs, and any free port.
    env.put("QUARRY_NAMESPACE", release);
    env.put("POD_NAME", "quarry-operator-0");
    env.put("QUARRY_HTTP_PORT", "0");
    return OperatorSettings.fromEnvironment(env).stayingAliveWithoutLeadership();
  }

  /** A client that authenticates as the chart's ServiceAccount, so RBAC applies the chart's roles. */
  private KubernetesClient serviceAccountClient(String name) {
    Config config = new ConfigBuilder(client.getConfiguration())
        .withImpersonateUsername("system:serviceaccount:" + release + ":" + name)
        .withImpersonateGroups("system:serviceaccounts", "system:serviceaccounts:" + release, "system:authenticated")
        .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private static boolean ready(QuarryOperator operator) throws IOException, InterruptedException {
    HttpResponse<Void> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://localhost:" + operator.httpPort() + "/readyz")).build(),
        HttpResponse.BodyHandlers.discarding());
    return response.statusCode() == 200;
  }

  private String helm(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(TestTools.binary("helm").toString());
    command.add("--kubeconfig=" + api.kubeconfig());
    command.addAll(List.of(args));
    CommandResult result = CommandResult.run(null, command);
    assertThat(result.exitCode()).as(result.stderr()).isZero();
    return result.stdout();
  }
}
