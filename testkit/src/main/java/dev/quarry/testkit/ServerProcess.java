package dev.quarry.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A test server running as a child process, its output kept in a log file. It is started, waited on until an
 * HTTP health URL answers 200, and always destroyed with its process tree on {@link #close()}.
 */
public final class ServerProcess implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final String name;
  private final Process process;
  private final Path log;

  private ServerProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** Starts {@code command} and waits until {@code healthUrl} answers 200, or fails with the server's log. */
  public static ServerProcess start(String name, List<String> command, Map<String, String> environment, Path log,
      URI healthUrl, Duration timeout) throws IOException, InterruptedException {
    return start(name, command, environment, log, healthUrl, timeout, HTTP);
  }

  /**
   * {@link #start} asking the health URL through {@code probe} (for an HTTPS server, one that trusts its certificate),
   * or a plain client when null.
   */
  public static ServerProcess start(String name, List<String> command, Map<String, String> environment, Path log,
      URI healthUrl, Duration timeout, HttpClient probe) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().putAll(environment);
    ServerProcess server = new ServerProcess(name, builder.start(), log);
    try {
      server.awaitHealthy(healthUrl, timeout, probe == null ? HTTP : probe);
      return server;
    } catch (IOException | RuntimeException | InterruptedException e) {
      server.close();
      throw e;
    }
  }

  private void awaitHealthy(URI healthUrl, Duration timeout, HttpClient probe) throws IOException,
      InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    HttpRequest request = HttpRequest.newBuilder(healthUrl).timeout(Duration.ofSeconds(2)).GET().build();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("Cannot start " + name + ": it exited with code " + process.exitValue() + "\n"
            + tailOfLog());
      }
      try {
        if (probe.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notYetListening) {
        // The server is still starting.
      }
      Thread.sleep(50);
    }
    throw new IOException("Cannot start " + name + ": " + healthUrl + " did not answer 200 within " + timeout
        + "\n" + tailOfLog());
  }

  /** The last lines of the server's log, for failure messages. */
  public String tailOfLog() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.descendants().forEach(ProcessHandle::destroy);
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
