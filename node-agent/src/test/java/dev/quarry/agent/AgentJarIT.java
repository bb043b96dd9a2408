package dev.quarry.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.KubeApiExtension;
import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.testkit.TestTools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The shaded jar the agent image runs, as the DaemonSet starts and stops it. */
@ExtendWith(KubeApiExtension.class)
class AgentJarIT {
  private final Path jar = RepositoryRoot.find().resolve("node-agent/target/quarry-agent.jar");

  @Test
  void exitsPromptlyOnSigterm(KubeApi api) throws Exception {
    String namespace = api.createNamespace("quarry-system");
    Path log = Files.createTempFile("quarry-agent-", ".log");
    ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
        jar.toString(), "run", "--node-cache", "absent", "--node", "node-a", "--namespace", namespace,
        "--metrics-port", String.valueOf(TestTools.freeLoopbackPort()))
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("KUBECONFIG", api.kubeconfig().toString());
    Process process = builder.start();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(log).contains("not found; waiting"));
      long start = System.nanoTime();
      // SIGTERM, as Kubernetes stops a pod. The shutdown hook once waited 20 s for the main thread, which was itself
      // blocked in System.exit behind that hook: every agent pod took 20 s to stop.
      process.destroy();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exits on SIGTERM").isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to exit").isLessThan(Duration.ofSeconds(10));
    } finally {
      process.destroyForcibly();
      Files.deleteIfExists(log);
    }
  }

  @Test
  void rootsOneInsideAnotherStopTheAgentWithOneLine() throws Exception {
    ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
        jar.toString(), "run", "--node-cache", "absent", "--node", "node-a").redirectErrorStream(true);
    builder.environment().put("QUARRY_NODECACHE_SOURCE_ROOTS", "/mnt");
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes()).strip();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output).isEqualTo("quarry-agent: Invalid NodeCache roots: /mnt and /mnt/quarry (must be apart: no"
        + " mount, cache or source root inside another; set nodeCache.mountRoots, cacheRoots and sourceRoots in the"
        + " chart)");
  }

  @Test
  void logsOneJsonObjectPerLineWhenAsked(KubeApi api) throws Exception {
    String namespace = api.createNamespace("quarry-system");
    Path log = Files.createTempFile("quarry-agent-", ".log");
    ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-jar",
        jar.toString(), "run", "--node-cache", "absent", "--node", "node-a", "--namespace", namespace,
        "--metrics-port", String.valueOf(TestTools.freeLoopbackPort()))
        // The log goes to standard output; the JVM's own warnings (a newer JVM's about sun.misc.Unsafe) to stderr.
        .redirectOutput(log.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put("KUBECONFIG", api.kubeconfig().toString());
    builder.environment().put("QUARRY_LOG_FORMAT", "json");
    Process process = builder.start();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(log).contains("not found; waiting"));
      ObjectMapper json = new ObjectMapper();
      List<String> lines = Files.readAllLines(log);
      assertThat(lines).isNotEmpty().allSatisfy(line -> assertThat(json.readTree(line).has("level"))
          .as(line).isTrue());
      assertThat(lines).anySatisfy(line -> assertThat(json.readTree(line).get("formattedMessage").asText())
          .contains("not found; waiting"));
    } finally {
      process.destroyForcibly();
      Files.deleteIfExists(log);
    }
  }
}
