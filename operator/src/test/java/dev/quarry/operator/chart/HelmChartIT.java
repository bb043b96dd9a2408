package dev.quarry.operator.chart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.common.EndpointAllowlist;
import dev.quarry.api.nodecache.HostPathRoots;
import dev.quarry.api.nodecache.NodeCacheSecrets;
import dev.quarry.operator.runtime.OperatorSettings;
import dev.quarry.testkit.CommandResult;
import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.testkit.TestTools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.operator.jobs.WorkerPodDefaults;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    assertThat(env).containsEntry("QUARRY_LOG_FORMAT", "text").containsEntry("QUARRY_LOG_LEVEL", "info");
    assertThat(settings.agents().logFormat()).isEqualTo("text");
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
    assertThat(byDefault.agents().secrets()).as("empty: a NodeCache may name no Secret")
        .isEqualTo(NodeCacheSecrets.NONE);
    assertThat(named(defaults, ValidatingAdmissionPolicy.class, "quarry-limits").getSpec().getFailurePolicy())
        .isEqualTo("Fail");
    assertThat(named(defaults, ValidatingAdmissionPolicyBinding.class, "quarry-limits").getSpec()
        .getValidationActions()).containsExactly("Deny");

    List<HasMetadata> objects = render("--set", "nodeCache.mountRoots={/mnt/fast,/mnt/slow}",
        "--set", "nodeCache.cacheRoots={/nvme}", "--set", "nodeCache.sourceRoots={/mnt/nfs}",
        "--set", "storeEndpoints={http://minio.storage:9000/,https://s3.example.com}",
        "--set", "nodeCache.credentialsSecrets={s3-credentials,cache-keys}");
    OperatorSettings settings = settings(only(objects, Deployment.class));
    assertThat(settings.agents().secrets()).isEqualTo(new NodeCacheSecrets(List.of("s3-credentials",
        "cache-keys")));
    assertThat(settings.agents().roots()).isEqualTo(new HostPathRoots(List.of("/mnt/fast", "/mnt/slow"),
        List.of("/nvme"), List.of("/mnt/nfs")));
    assertThat(settings.workers().endpoints().endpoints()).containsExactly("http://minio.storage:9000",
        "https://s3.example.com");
    assertThat(settings.agents().endpoints()).isEqualTo(settings.workers().endpoints());
    var variables = named(objects, ValidatingAdmissionPolicy.class, "quarry-limits").getSpec().getVariables();
    assertThat(variables).filteredOn(v -> v.getName().equals("mountRoots")).singleElement()
        .satisfies(v -> assertThat(v.getExpression()).isEqualTo("[\"/mnt/fast\",\"/mnt/slow\"]"));
    assertThat(variables).filteredOn(v -> v.getName().equals("credentialsSecrets")).singleElement()
        .satisfies(v -> assertThat(v.getExpression()).isEqualTo("[\"s3-credentials\",\"cache-keys\"]"));
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

  /** Off by default: a resource without a Secret sends unsigned requests, not those of the node's role. */
  @Test
  void theAdminDecidesWhetherWorkersAndAgentsMayUseAmbientCredentials() throws Exception {
    OperatorSettings byDefault = settings(only(render(), Deployment.class));
    assertThat(byDefault.workers().ambientCredentials()).isFalse();
    assertThat(byDefault.agents().ambientCredentials()).isFalse();
    OperatorSettings allowed = settings(only(render("--set", "ambientCredentials=true"), Deployment.class));
    assertThat(allowed.workers().ambientCredentials()).isTrue();
    assertThat(allowed.agents().ambientCredentials()).isTrue();
  }

  @Test
  void theSchemaRefusesAMisspelledOrMistypedValue() throws Exception {
    CommandResult result = helmResult("lint", chart.toString(), "--strict", "--set", "operator.replicas=two",
        "--set", "worker.nodeSelecter.pool=cpu");
    assertThat(result.exitCode()).isNotZero();
    assertThat(result.stdout() + result.stderr()).contains("at '/operator/replicas': got string, want integer")
        .contains("additional properties 'nodeSelecter' not allowed");
  }

  @Test
  void workerPodDefaultsReachTheOperatorAndTheChartsDefaultsAreTheBuiltInOnes() throws Exception {
    WorkerPodDefaults byDefault = settings(only(render(), Deployment.class)).workers().pod();
    assertThat(byDefault).as("values.yaml and WorkerPodDefaults.BUILT_IN say the same")
        .isEqualTo(WorkerPodDefaults.BUILT_IN);

    OperatorSettings settings = settings(only(render("--set", "worker.resources.requests.memory=2Gi",
        "--set", "worker.nodeSelector.pool=cpu", "--set", "worker.tolerations[0].key=batch",
        "--set", "worker.tolerations[0].operator=Exists", "--set", "worker.priorityClassName=batch-low",
        "--set", "worker.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            + ".nodeSelectorTerms[0].matchExpressions[0].key=gpu",
        "--set", "worker.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
            + ".nodeSelectorTerms[0].matchExpressions[0].operator=DoesNotExist",
        "--set", "worker.podSecurityContext.runAsUser=2000", "--set", "worker.securityContext.privileged=false",
        "--set", "imagePullSecrets[0].name=registry"), Deployment.class));
    WorkerPodDefaults pod = settings.workers().pod();
    assertThat(pod.resources().getRequests()).containsKey("memory");
    assertThat(pod.nodeSelector()).isEqualTo(Map.of("pool", "cpu"));
    assertThat(pod.tolerations()).singleElement().satisfies(t -> assertThat(t.getOperator()).isEqualTo("Exists"));
    assertThat(pod.priorityClassName()).isEqualTo("batch-low");
    assertThat(pod.affinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()).isNotNull();
    assertThat(pod.podSecurityContext().getRunAsUser()).as("one key changed, the others kept").isEqualTo(2000L);
    assertThat(pod.podSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.securityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(pod.imagePullSecrets()).extracting(LocalObjectReference::getName).containsExactly("registry");
    assertThat(settings.agents().imagePullSecrets()).extracting(LocalObjectReference::getName)
        .containsExactly("registry");
  }

  @Test
  void theOperatorPodTakesTheAdminsPullSecretsPriorityLabelsAndExtras() throws Exception {
    Deployment deployment = only(render("--set", "imagePullSecrets[0].name=registry",
        "--set", "operator.priorityClassName=system-cluster-critical", "--set", "operator.podLabels.team=ml",
        "--set", "operator.extraEnv[0].name=HTTPS_PROXY", "--set", "operator.extraEnv[0].value=http://proxy:3128",
        "--set", "operator.extraVolumes[0].name=ca", "--set", "operator.extraVolumes[0].configMap.name=ca",
        "--set", "operator.extraVolumeMounts[0].name=ca", "--set", "operator.extraVolumeMounts[0].mountPath=/ca"),
        Deployment.class);
    var pod = deployment.getSpec().getTemplate().getSpec();
    assertThat(pod.getImagePullSecrets()).extracting(LocalObjectReference::getName).containsExactly("registry");
    assertThat(pod.getPriorityClassName()).isEqualTo("system-cluster-critical");
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels()).containsEntry("team", "ml");
    assertThat(pod.getContainers().get(0).getEnv()).extracting(EnvVar::getName).contains("HTTPS_PROXY",
        "QUARRY_WORKER_IMAGE");
    assertThat(pod.getVolumes()).extracting(v -> v.getName()).containsExactly("tmp", "ca");
    assertThat(pod.getContainers().get(0).getVolumeMounts()).extracting(m -> m.getMountPath())
        .containsExactly("/tmp", "/ca");
  }

  @Test
  void everyObjectIsNamedFromFullnameOverrideAndLabelledAsHelmManaged() throws Exception {
    List<HasMetadata> objects = render("--set", "fullnameOverride=ml-quarry", "--set", "nameOverride=datasets");
    assertThat(objects).allSatisfy(object -> {
      assertThat(object.getMetadata().getName()).startsWith("ml-quarry-");
      assertThat(object.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "Helm")
          .containsEntry("app.kubernetes.io/name", "datasets");
    });
    OperatorSettings settings = settings(only(objects, Deployment.class));
    assertThat(settings.leaseName()).isEqualTo("ml-quarry-operator");
    assertThat(settings.agents().serviceAccount()).isEqualTo("ml-quarry-agent");
    Deployment deployment = only(objects, Deployment.class);
    assertThat(deployment.getSpec().getSelector().getMatchLabels()).containsEntry("app.kubernetes.io/name",
        "datasets");
    assertThat(deployment.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("ml-quarry-operator");
    assertThat(render()).as("the release name by default, as before these values")
        .extracting(object -> object.getMetadata().getName())
        .contains("quarry-operator", "quarry-agent", "quarry-operator-metrics", "quarry-limits");
  }

  @Test
  void serviceAccountsCarryACloudIdentityOrAreTheAdminsOwn() throws Exception {
    List<HasMetadata> objects = render("--set", "serviceAccounts.operator.annotations.eks\\.amazonaws\\.com/role-arn"
        + "=arn:aws:iam::1:role/quarry", "--set", "serviceAccounts.agent.create=false",
        "--set", "serviceAccounts.agent.name=node-agents");
    assertThat(objects).filteredOn(ServiceAccount.class::isInstance).singleElement().satisfies(account -> {
      assertThat(account.getMetadata().getName()).isEqualTo("quarry-operator");
      assertThat(account.getMetadata().getAnnotations()).containsEntry("eks.amazonaws.com/role-arn",
          "arn:aws:iam::1:role/quarry");
    });
    assertThat(settings(only(objects, Deployment.class)).agents().serviceAccount()).isEqualTo("node-agents");
    assertThat(named(objects, ClusterRoleBinding.class, "quarry-agent").getSubjects()).singleElement()
        .satisfies(subject -> assertThat(subject.getName()).isEqualTo("node-agents"));
    assertThat(named(objects, RoleBinding.class, "quarry-agent").getSubjects()).singleElement()
        .satisfies(subject -> assertThat(subject.getName()).isEqualTo("node-agents"));
  }

  @Test
  void aDisruptionBudgetKeepsAnOperatorThroughDrains() throws Exception {
    Deployment deployment = only(render(), Deployment.class);
    PodDisruptionBudget budget = only(render(), PodDisruptionBudget.class);
    assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
    assertThat(render("--set", "operator.podDisruptionBudget.enabled=false"))
        .noneMatch(PodDisruptionBudget.class::isInstance);
  }

  @Test
  void monitorsSelectTheOperatorsServiceAndTheAgentPodsWhenAsked() throws Exception {
    assertThat(render()).noneMatch(o -> o.getKind().endsWith("Monitor"));
    List<HasMetadata> objects = render("--set", "monitoring.serviceMonitor.enabled=true",
        "--set", "monitoring.podMonitor.enabled=true", "--set", "monitoring.podMonitor.labels.release=prometheus");
    GenericKubernetesResource serviceMonitor = kind(objects, "ServiceMonitor");
    Service service = only(objects, Service.class);
    assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(
        stringMap(serviceMonitor, "spec", "selector", "matchLabels"));
    assertThat(serviceMonitor.<String>get("spec", "endpoints", 0, "port"))
        .isEqualTo(service.getSpec().getPorts().get(0).getName());
    GenericKubernetesResource podMonitor = kind(objects, "PodMonitor");
    assertThat(podMonitor.getMetadata().getLabels()).containsEntry("release", "prometheus");
    assertThat(podMonitor.<String>get("spec", "podMetricsEndpoints", 0, "port")).isEqualTo("metrics");
    assertThat(stringMap(podMonitor, "spec", "selector", "matchLabels")).isEqualTo(Map.of(
        "app.kubernetes.io/component", "agent", "app.kubernetes.io/managed-by", "quarry-operator"));
  }

  @Test
  void watchNamespacesTurnTheNamespacedRulesIntoARolePerNamespace() throws Exception {
    List<String> all = rules(named(render(), ClusterRole.class, "quarry-operator").getRules());
    assertThat(all).contains("quarry.dev/shardsortjobs: get,list,watch,patch,update", "batch/jobs: get,list,watch,"
        + "create,delete");

    List<HasMetadata> objects = render("--set", "watchNamespaces={ml,vision}");
    List<String> cluster = rules(named(objects, ClusterRole.class, "quarry-operator").getRules());
    assertThat(cluster).as("only what is cluster-scoped").containsExactlyInAnyOrder(
        "quarry.dev/nodecaches: get,list,watch,patch,update", "quarry.dev/nodecaches/status: get,patch,update",
        "quarry.dev/nodecaches/finalizers: update", "quarry.dev/nodecachereports: get,list,watch,delete",
        "/nodes: get");
    List<Role> watched = objects.stream().filter(Role.class::isInstance).map(Role.class::cast)
        .filter(role -> role.getMetadata().getName().equals("quarry-operator-watch")).toList();
    assertThat(watched).extracting(role -> role.getMetadata().getNamespace()).containsExactly("ml", "vision");
    assertThat(watched).allSatisfy(role -> assertThat(rules(role.getRules()))
        .containsExactlyInAnyOrderElementsOf(all.stream().filter(rule -> !cluster.contains(rule)).toList()));
    assertThat(objects).filteredOn(RoleBinding.class::isInstance).map(RoleBinding.class::cast)
        .filteredOn(binding -> binding.getMetadata().getName().equals("quarry-operator-watch"))
        .hasSize(2).allSatisfy(binding -> assertThat(binding.getSubjects().get(0).getNamespace())
            .isEqualTo("quarry-system"));
    assertThat(rules(named(objects, Role.class, "quarry-operator").getRules()))
        .as("NodeCache events go to the release namespace").contains("/events: create,patch");
    assertThat(settings(only(objects, Deployment.class)).watchNamespaces()).containsExactlyInAnyOrder("ml",
        "vision");
  }

  @Test
  void theAlertsAreValidPrometheusRulesOnDocumentedMetrics() throws Exception {
    assertThat(render()).noneMatch(o -> o.getKind().equals("PrometheusRule"));
    GenericKubernetesResource rule = kind(render("--set", "monitoring.prometheusRule.enabled=true",
        "--set", "monitoring.serviceMonitor.enabled=true",
        "--set-json", "monitoring.prometheusRule.cacheFullRatio=0.8"),
        "PrometheusRule");
    String groups = serialization.asYaml(Map.of("groups", rule.get("spec", "groups")));
    assertThat(groups).contains("QuarryRunFailed", "QuarryCacheCopyFailures", "QuarryCacheNearlyFull",
        "QuarryNodeCacheDegraded", "QuarryOperatorDown", "> 0.8");
    Path rules = Files.createTempFile("quarry-rules-", ".yaml");
    Files.writeString(rules, groups);
    CommandResult checked = CommandResult.run(null, List.of(TestTools.binary("promtool").toString(), "check",
        "rules", rules.toString()));
    assertThat(checked.exitCode()).as(checked.stdout() + checked.stderr()).isZero();
    assertThat(checked.stdout()).contains("SUCCESS: 6 rules found");
    assertThat(quarryMetrics(groups)).isSubsetOf(documentedMetrics());
  }

  @Test
  void theDashboardIsValidJsonInAnOptionalConfigMapOnDocumentedMetrics() throws Exception {
    assertThat(render()).noneMatch(o -> o.getKind().equals("ConfigMap"));
    ConfigMap dashboard = only(render("--set", "monitoring.grafanaDashboard.enabled=true"), ConfigMap.class);
    assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    String json = dashboard.getData().get("quarry.json");
    assertThat(json).isEqualTo(Files.readString(chart.resolve("dashboards/quarry.json")).strip());
    JsonNode parsed = new ObjectMapper().readTree(json);
    List<String> expressions = parsed.findValues("expr").stream().map(JsonNode::asText).toList();
    assertThat(expressions).hasSizeGreaterThan(10);
    Set<String> used = quarryMetrics(String.join("\n", expressions));
    assertThat(used).contains("quarry_resources", "quarry_runs_finished_total", "quarry_cache_hit_ratio",
        "quarry_cache_decision_seconds");
    assertThat(used).isSubsetOf(documentedMetrics());
  }

  /** The quarry_* series an expression reads, with a histogram's _bucket suffix dropped. */
  private static Set<String> quarryMetrics(String text) {
    Set<String> names = new TreeSet<>();
    Matcher matcher = Pattern.compile("\\bquarry_[a-z_]+").matcher(text);
    while (matcher.find()) {
      names.add(matcher.group().replaceFirst("_bucket$", ""));
    }
    return names;
  }

  /** The metrics docs/operations.md lists, in its tables' first column. */
  private static Set<String> documentedMetrics() throws IOException {
    String docs = Files.readString(RepositoryRoot.find().resolve("docs/operations.md"));
    Set<String> names = new TreeSet<>();
    docs.lines().filter(line -> line.startsWith("| `quarry_")).forEach(line -> {
      Matcher matcher = Pattern.compile("`(quarry_[a-z_]+)").matcher(line.substring(0, line.indexOf(" |", 2)));
      while (matcher.find()) {
        names.add(matcher.group(1));
      }
    });
    return names;
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

  private static GenericKubernetesResource kind(List<HasMetadata> objects, String kind) {
    return objects.stream().filter(o -> kind.equals(o.getKind())).map(GenericKubernetesResource.class::cast)
        .reduce((a, b) -> {
          throw new AssertionError("more than one " + kind);
        }).orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, String> stringMap(GenericKubernetesResource resource, Object... path) {
    return (Map<String, String>) resource.<Map<String, String>>get(path);
  }

  private static String helm(String... args) throws IOException, InterruptedException {
    CommandResult result = helmResult(args);
    assertThat(result.exitCode()).as(result.stderr()).isZero();
    return result.stdout();
  }

  private static CommandResult helmResult(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(TestTools.binary("helm").toString());
    command.addAll(List.of(args));
    return CommandResult.run(null, command);
  }
}
