package dev.quarry.testkit;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real kube-apiserver with etcd (fabric8 kube-api-test in offline mode, fed with the binaries e2e/tools builds),
 * with Quarry's CRDs installed and established. There is no kubelet: nothing runs pods.
 */
public final class KubeApi implements AutoCloseable {
  private final KubeAPIServer server;
  private final KubernetesClient client;
  private final Path kubeconfig;
  private final String version;

  private KubeApi(KubeAPIServer server, KubernetesClient client, Path kubeconfig, String version) {
    this.server = server;
    this.client = client;
    this.kubeconfig = kubeconfig;
    this.version = version;
  }

  /** Starts the API server and installs every CRD under {@code crds/yaml} of this checkout. */
  public static KubeApi startWithQuarryCrds() throws IOException {
    String version = ToolVersions.get("KUBE_API_TEST_API_SERVER_VERSION");
    // Offline mode must be set here: in kube-api-test 7.5.2 its environment variable crashes at startup.
    KubeAPIServer server = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withOfflineMode(true)
        .withApiServerVersion(version)
        .withUpdateKubeConfig(false)
        .build());
    server.start();
    Path kubeconfig = Files.createTempFile("quarry-kubeconfig-", ".yaml");
    Files.writeString(kubeconfig, server.getKubeConfigYaml());
    KubernetesClient client =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(server.getKubeConfigYaml())).build();
    KubeApi api = new KubeApi(server, client, kubeconfig, version);
    try {
      api.installCrds(RepositoryRoot.find().resolve("crds/yaml"));
      return api;
    } catch (IOException | RuntimeException e) {
      api.close();
      throw e;
    }
  }

  private void installCrds(Path directory) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(directory)) {
      files = list.filter(path -> path.toString().endsWith(".yml")).sorted().toList();
    }
    for (Path file : files) {
      try (InputStream in = Files.newInputStream(file)) {
        CustomResourceDefinition crd = client.getKubernetesSerialization().unmarshal(in,
            CustomResourceDefinition.class);
        client.resource(crd).create();
        client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
            .waitUntilCondition(KubeApi::established, 30, TimeUnit.SECONDS);
      }
    }
  }

  private static boolean established(CustomResourceDefinition crd) {
    // Right after creation the status can exist with no conditions yet.
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  public KubernetesClient client() {
    return client;
  }

  /** A kubeconfig file for this server, for kubectl and helm. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The Kubernetes version of the server, for example 1.34.4. */
  public String version() {
    return version;
  }

  /** Creates a namespace with a unique name and returns the name. */
  public String createNamespace(String prefix) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    client.resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build()).create();
    return name;
  }

  /** The names of the CRDs installed, for assertions. */
  public List<String> crdNames() {
    return client.apiextensions().v1().customResourceDefinitions().list().getItems().stream()
        .map(HasMetadata::getMetadata).map(m -> m.getName()).sorted().toList();
  }

  /** Runs the real kubectl against this server. */
  public CommandResult kubectl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(TestTools.binary("kubectl").toString());
    command.add("--kubeconfig=" + kubeconfig);
    command.addAll(List.of(args));
    return CommandResult.run(null, command);
  }

  @Override
  public void close() {
    client.close();
    server.stop();
    try {
      Files.deleteIfExists(kubeconfig);
    } catch (IOException ignored) {
      // A leftover temp file is harmless.
    }
  }
}
