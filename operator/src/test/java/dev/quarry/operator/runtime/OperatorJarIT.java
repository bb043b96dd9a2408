package dev.quarry.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.testkit.TestTools;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The shaded jar the operator image runs: it starts from its environment, as the chart configures it. */
@ExtendWith(KubeApiExtension.class)
class OperatorJarIT {
  private final Path jar = RepositoryRoot.find().resolve("operator/target/quarry-operator.jar");

  @Test
  void startsBecomesReadyAndTakesTheLease(KubeApi api) throws Exception {
    String namespace = api.createNamespace("quarry-system");
    int port = TestTools.freeLoopbackPort();
    Path log = Files.createTempFile("quarry-operator-", ".log");
    ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
        jar.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(Map.of("KUBECONFIG", api.kubeconfig().toString(), "QUARRY_NAMESPACE", namespace,
        "QUARRY_WORKER_IMAGE", "quarry-worker:test", "QUARRY_AGENT_IMAGE", "quarry-agent:test",
        "QUARRY_HTTP_PORT", String.valueOf(port), "POD_NAME", "jar-test"));
    Process process = builder.start();
    try {
      HttpClient http = HttpClient.newHttpClient();
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> http.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + port + "/readyz")).build(), HttpResponse.BodyHandlers.ofString())
          .statusCode() == 200);
      await().atMost(Duration.ofSeconds(30)).until(() -> api.client().leases().inNamespace(namespace)
          .withName("quarry-operator").get() != null);
      assertThat(Files.readString(log)).contains("started namespace=" + namespace, "leaderElection=true")
          .doesNotContain("Exception");
      // SIGTERM, as Kubernetes stops a pod: the shutdown hook stops the operator and the JVM exits.
      process.destroy();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exits on SIGTERM").isTrue();
    } finally {
      process.destroyForcibly();
      Files.deleteIfExists(log);
    }
  }

  @Test
  void logsOneJsonObjectPerLineWhenAsked() throws Exception {
    ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
        jar.toString()).redirectErrorStream(true);
    builder.environment().put("QUARRY_LOG_FORMAT", "json");
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor()).isEqualTo(2);
    JsonNode line = new ObjectMapper().readTree(output.strip());
    assertThat(line.get("level").asText()).isEqualTo("ERROR");
    assertThat(line.get("loggerName").asText()).isEqualTo("dev.quarry.operator.QuarryOperator");
    assertThat(line.get("formattedMessage").asText()).startsWith(
        "Cannot start the operator: QUARRY_NAMESPACE is not set");
    assertThat(line.get("timestamp").asLong()).isPositive();
  }

  @Test
  void aMissingSettingIsOneLineAndExitCode2() throws Exception {
    Process process = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
        jar.toString()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor()).isEqualTo(2);
    assertThat(output).contains("Cannot start the operator: QUARRY_NAMESPACE is not set").doesNotContain("\tat ");
  }
}
