package dev.quarry.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorSettingsTest {
  @Test
  void aMissingImageNamesTheVariable() {
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("QUARRY_NAMESPACE", "q",
        "QUARRY_AGENT_IMAGE", "a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot start the operator: QUARRY_WORKER_IMAGE is not set (the Helm chart sets it; when running"
            + " by hand, export it)");
  }

  @Test
  void aBadNumberSaysWhatItMustBe() {
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("QUARRY_NAMESPACE", "q",
        "QUARRY_WORKER_IMAGE", "w", "QUARRY_AGENT_IMAGE", "a", "QUARRY_JOB_TTL_SECONDS", "1d")))
        .hasMessage("Invalid QUARRY_JOB_TTL_SECONDS: 1d (must be a whole number)");
  }

  @Test
  void aBadJsonValueSaysWhatItMustBe() {
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("QUARRY_NAMESPACE", "q",
        "QUARRY_WORKER_IMAGE", "w", "QUARRY_AGENT_IMAGE", "a", "QUARRY_WORKER_TOLERATIONS", "{\"key\": 1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid QUARRY_WORKER_TOLERATIONS: {\"key\": 1 (must be a JSON array of tolerations, as in a"
            + " pod spec)");
  }

  @Test
  void watchNamespacesAreAListAndEmptyMeansEvery() {
    Map<String, String> env = Map.of("QUARRY_NAMESPACE", "q", "QUARRY_WORKER_IMAGE", "w", "QUARRY_AGENT_IMAGE", "a");
    assertThat(OperatorSettings.fromEnvironment(env).watchNamespaces()).isEmpty();
    Map<String, String> some = new java.util.HashMap<>(env);
    some.put("QUARRY_WATCH_NAMESPACES", " ml, vision ,");
    assertThat(OperatorSettings.fromEnvironment(some).watchNamespaces()).containsExactlyInAnyOrder("ml", "vision");
  }

  @Test
  void defaultsAreWhatTheChartDocuments() {
    OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of("QUARRY_NAMESPACE", "q",
        "QUARRY_WORKER_IMAGE", "w", "QUARRY_AGENT_IMAGE", "a"));
    assertThat(settings.leaderElection()).isTrue();
    assertThat(settings.exitOnLostLeadership()).isTrue();
    assertThat(settings.workers().finishedJobTtlSeconds()).isEqualTo(86400);
    assertThat(settings.workers().serviceAccount()).isNull();
    assertThat(settings.agents().serviceAccount()).isEqualTo("quarry-agent");
    assertThat(settings.agents().namespace()).isEqualTo("q");
    assertThat(settings.workers().ambientCredentials()).isFalse();
    assertThat(settings.agents().ambientCredentials()).isFalse();
    assertThat(settings.workers().pod()).as("hardened when the chart sets nothing")
        .isEqualTo(dev.quarry.operator.jobs.WorkerPodDefaults.BUILT_IN);
    assertThat(settings.agents().imagePullSecrets()).isEmpty();
  }

  @Test
  void ambientCredentialsAreForWorkersAndAgentsAlike() {
    OperatorSettings settings = OperatorSettings.fromEnvironment(Map.of("QUARRY_NAMESPACE", "q",
        "QUARRY_WORKER_IMAGE", "w", "QUARRY_AGENT_IMAGE", "a", "QUARRY_ALLOW_AMBIENT_CREDENTIALS", "true"));
    assertThat(settings.workers().ambientCredentials()).isTrue();
    assertThat(settings.agents().ambientCredentials()).isTrue();
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("QUARRY_NAMESPACE", "q",
        "QUARRY_WORKER_IMAGE", "w", "QUARRY_AGENT_IMAGE", "a", "QUARRY_ALLOW_AMBIENT_CREDENTIALS", "yes")))
        .hasMessage("Invalid QUARRY_ALLOW_AMBIENT_CREDENTIALS: yes (must be true or false)");
  }
}
