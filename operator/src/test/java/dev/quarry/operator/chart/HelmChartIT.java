package dev.quarry.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.operator.runtime.OperatorSettings;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.testkit.TestTools;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The chart, checked with the real helm built by e2e/tools: it lints clean and renders what the operator expects. */
class HelmChartIT {
  private final Path chart = RepositoryRoot.find().resolve("charts/quarry");
  private final KubernetesSerialization serialization = new KubernetesSerialization();

  @Test
  void lintsClean() throws Exception {
    String output = helm("lint", chart.toString(), "--strict");
    assertThat(output).contains("1 chart(s) linted, 0 chart(s) failed").doesNotContain("[ERROR]", "[WARNING]");
  }

  @Test
  void rendersEveryCommittedCrd() throws Exception {
    List<String> documents = documents(helm("template", "quarry", chart.toString(), "--include-crds"));
    List<Path> crdFiles;
    try (Stream<Path> files = Files.list(chart.resolve("crds"))) {
      crdFiles = files.sorted().toList();
    }
    assertThat(crdFiles).extracting(path -> path.getFileName().toString()).containsExactly(
        "datasetsyncs.quarry.dev-v1.yml", "nodecachereports.quarry.dev-v1.yml", "nodecaches.quarry.dev-v1.yml",
        "shardsortjobs.quarry.dev-v1.yml");
    for (Path crd : crdFiles) {
      String body = Files.readString(crd).lines().filter(line -> !line.startsWith("#"))
          .reduce((a, b) -> a + "\n" + b).orElseThrow().strip();
      assertThat(documents).anySatisfy(doc -> assertThat(doc).endsWith(body));
    }
  }

  @Test
  void theDeploymentGivesTheOperatorEverySettingItReads() throws Exception {
    List<HasMetadata> objects = render("--set", "worker.image.tag=1.2.3");
    Deployment deployment = only(objects, Deployment.class);
    var container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> env = new HashMap<>();
    for (EnvVar variable : container.getEnv()) {
      // The kubelet fills the fieldRef ones; any value will do to read the settings.
      env.put(variable.getName(), variable.getValue() != null ? variable.getValue() : "from-" + variable.getName());
    }
    OperatorSettings settings = OperatorSettings.fromEnvironment(env);
    assertThat(settings.workers().image()).isEqualTo("ghcr.io/quarry-dev/quarry-worker:1.2.3");
    assertThat(settings.agents().image()).isEqualTo("ghcr.io/quarry-dev/quarry-agent:0.1.0");
    assertThat(settings.agents().resources().getLimits()).containsKey("memory");
    assertThat(settings.workers().serviceAccount()).as("the namespace's default, with no token").isNull();
    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.httpPort()).isEqualTo(8080);
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(deployment.getSpec().getTemplate().getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
  }

  @Test
  void theAdminsRootsAndEndpointsReachTheOperatorAndTheAdmissionPolicy() throws Exception {
    List<HasMetadata> defaults = render();
    OperatorSettings byDefault = settings(only(defaults, Deployment.class));
    assertThat(byDefault.agents().roots()).isEqualTo(HostPathRoots.DEFAULTS);
    assertThat(byDefault.workers().endpoints()).as("empty: any endpoint, as documented")
        .isEqualTo(EndpointAllowlist.ANY);
    assertThat(named(defaults, ValidatingAdmissionPolicy.class, "quarry-limits").getSpec().getFailurePolicy())
        .isEqualTo("Fail");
    assertThat(named(defaults, ValidatingAdmissionPolicyBinding.class, "quarry-limits").getSpec()
        .getValidationActions()).containsExactly("Deny");

    List<HasMetadata> objects = render("--set", "nodeCache.mountRoots={/mnt/fast,/mnt/slow}",
        "--set", "nodeCache.cacheRoots={/nvme}", "--set", "nodeCache.sourceRoots={/mnt/nfs}",
        "--set", "storeEndpoints={http://minio.storage:9000/,https://s3.example.com}");
    OperatorSettings settings = settings(only(objects, Deployment.class));
    assertThat(settings.agents().roots()).isEqualTo(new HostPathRoots(List.of("/mnt/fast", "/mnt/slow"),
        List.of("/nvme"), List.of("/mnt/nfs")));
    assertThat(settings.workers().endpoints().endpoints()).containsExactly("http://minio.storage:9000",
        "https://s3.example.com");
    assertThat(settings.agents().endpoints()).isEqualTo(settings.workers().endpoints());
    var variables = named(objects, ValidatingAdmissionPolicy.class, "quarry-limits").getSpec().getVariables();
    assertThat(variables).filteredOn(v -> v.getName().equals("mountRoots")).singleElement()
        .satisfies(v -> assertThat(v.getExpression()).isEqualTo("[\"/mnt/fast\",\"/mnt/slow\"]"));
    assertThat(variables).filteredOn(v -> v.getName().equals("endpoints")).singleElement()
        .satisfies(v -> assertThat(v.getExpression()).isEqualTo(
            "[\"http://minio.storage:9000\",\"https://s3.example.com\"]"));

    assertThat(render("--set", "admissionPolicy.enabled=false"))
        .noneMatch(o -> o instanceof ValidatingAdmissionPolicy || o instanceof ValidatingAdmissionPolicyBinding);
  }

  @Test
  void rootsInsideOneAnotherFailTheRender() throws Exception {
    for (String[] values : List.of(new String[] {"--set", "nodeCache.sourceRoots={/mnt}"},
        new String[] {"--set", "nodeCache.cacheRoots={/mnt/quarry/cache}"})) {
      List<String> command = new ArrayList<>(List.of(TestTools.binary("helm").toString(), "template", "quarry",
          chart.toString()));
      command.addAll(Arrays.asList(values));
      CommandResult result = CommandResult.run(null, command);
      assertThat(result.exitCode()).as(String.join(" ", values)).isNotZero();
      assertThat(result.stderr()).containsPattern("Invalid NodeCache roots: /mnt(/quarry)? and /mnt/quarry(/cache)?"
          + " \\(must be apart: no mount, cache or source root inside another; set nodeCache.mountRoots, cacheRoots"
          + " and sourceRoots\\)");
    }
  }

  private static OperatorSettings settings(Deployment deployment) {
    Map<String, String> env = new HashMap<>();
    for (EnvVar variable : deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv()) {
      env.put(variable.getName(), variable.getValue() != null ? variable.getValue() : "from-" + variable.getName());
    }
    return OperatorSettings.fromEnvironment(env);
  }

  @Test
  void theAgentMayReadItsNodeCacheAndNodeOwnItsReportsAndTakeCopySlotsAndNothingElse() throws Exception {
    List<HasMetadata> objects = render();
    ClusterRole cluster = named(objects, ClusterRole.class, "quarry-agent");
    assertThat(rules(cluster.getRules())).containsExactlyInAnyOrder(
        "quarry.dev/nodecaches: get,list,watch",
        "/nodes: get",
        "quarry.dev/nodecachereports: get,list,watch,create,update,patch,delete",
        "quarry.dev/nodecachereports/status: get,update,patch");
    Role role = named(objects, Role.class, "quarry-agent");
    assertThat(role.getMetadata().getNamespace()).isEqualTo("quarry-system");
    assertThat(rules(role.getRules())).containsExactly("coordination.k8s.io/leases: get,create,update,delete");
  }

  @Test
  void theOperatorCannotReadSecretsOrTouchWorkloadsBeyondItsOwn() throws Exception {
    List<HasMetadata> objects = render();
    List<String> rules = rules(named(objects, ClusterRole.class, "quarry-operator").getRules());
    assertThat(rules).noneMatch(rule -> rule.contains("secrets") || rule.contains("*"));
    assertThat(rules).contains("batch/jobs: get,list,watch,create,delete", "/pods: get,list,watch", "/nodes: get");
    assertThat(rules(named(objects, Role.class, "quarry-operator").getRules()))
        .as("fabric8's LeaderElector renews the lease with a PATCH")
        .contains("coordination.k8s.io/leases: get,create,update,patch");
  }

  private static List<String> rules(List<PolicyRule> rules) {
    List<String> result = new ArrayList<>();
    for (PolicyRule rule : rules) {
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          result.add(group + "/" + resource + ": " + String.join(",", rule.getVerbs()));
        }
      }
    }
    return result;
  }

  private List<HasMetadata> render(String... values) throws Exception {
    List<String> args = new ArrayList<>(List.of("template", "quarry", chart.toString(), "--namespace",
        "quarry-system"));
    args.addAll(Arrays.asList(values));
    return documents(helm(args.toArray(String[]::new))).stream()
        .map(doc -> (HasMetadata) serialization.unmarshal(doc)).toList();
  }

  private static <T extends HasMetadata> T only(List<HasMetadata> objects, Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).reduce((a, b) -> {
      throw new AssertionError("more than one " + type.getSimpleName());
    }).orElseThrow();
  }

  private static <T extends HasMetadata> T named(List<HasMetadata> objects, Class<T> type, String name) {
    return objects.stream().filter(type::isInstance).map(type::cast)
        .filter(object -> name.equals(object.getMetadata().getName())).findFirst().orElseThrow();
  }

  private static List<String> documents(String rendered) {
    return Arrays.stream(rendered.split("(?m)^---\\s*$")).map(String::strip)
        .filter(doc -> doc.contains("kind:")).toList();
  }

  private static String helm(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(TestTools.binary("helm").toString());
    command.addAll(List.of(args));
    CommandResult result = CommandResult.run(null, command);
    assertThat(result.exitCode()).as(result.stderr()).isZero();
    return result.stdout();
  }
}
