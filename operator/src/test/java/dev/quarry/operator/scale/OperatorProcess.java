package dev.quarry.operator.scale;

import dev.quarry.testkit.KubeApi;
import dev.quarry.testkit.RepositoryRoot;
import dev.quarry.testkit.TestTools;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator's shaded jar in a process of its own, with the heap the chart gives it (75% of a 512 MiB limit), so
 * that its CPU time and resident memory are its own and not the test's.
 */
final class OperatorProcess implements AutoCloseable {
  private final Process process;
  private final int port;
  private final Path log;
  private final HttpClient http = HttpClient.newHttpClient();

  private OperatorProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  static OperatorProcess start(KubeApi api, String namespace, Map<String, String> more) throws IOException {
    int port = TestTools.freeLoopbackPort();
    Path log = Files.createTempFile("quarry-operator-scale-", ".log");
    ProcessBuilder builder = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
        "-Xmx384m", "-jar", RepositoryRoot.find().resolve("operator/target/quarry-operator.jar").toString())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(Map.of("KUBECONFIG", api.kubeconfig().toString(), "QUARRY_NAMESPACE", namespace,
        "QUARRY_WORKER_IMAGE", "quarry-worker:test", "QUARRY_AGENT_IMAGE", "quarry-agent:test",
        "QUARRY_HTTP_PORT", String.valueOf(port), "POD_NAME", "scale-test"));
    builder.environment().putAll(more);
    return new OperatorProcess(builder.start(), port, log);
  }

  /** The operator's Prometheus metrics, or null while it does not answer. */
  String metrics() {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? response.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** CPU time the process used so far. */
  Duration cpuTime() {
    return process.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
  }

  /** Resident memory of the process in bytes, as the kernel counts it against a pod's limit. */
  long residentBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(process.pid()), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IOException("Cannot read the resident memory of process " + process.pid() + ": no VmRSS line");
  }

  String log() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    Files.deleteIfExists(log);
  }
}
