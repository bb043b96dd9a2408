package dev.quarry.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real toxiproxy server on loopback: TCP proxies in front of test servers that add latency, cap bandwidth or
 * reset connections, driven through toxiproxy's HTTP API.
 */
public final class Toxiproxy implements AutoCloseable {
  private static final Pattern LISTEN = Pattern.compile("\"listen\"\\s*:\\s*\"([^\"]+)\"");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final ServerProcess process;
  private final Path workDir;
  private final URI api;

  private Toxiproxy(ServerProcess process, Path workDir, URI api) {
    this.process = process;
    this.workDir = workDir;
    this.api = api;
  }

  public static Toxiproxy start() throws IOException, InterruptedException {
    Path binary = TestTools.binary("toxiproxy-server");
    Path workDir = Files.createTempDirectory("quarry-toxiproxy-");
    int port = TestTools.freeLoopbackPort();
    URI api = URI.create("http://127.0.0.1:" + port);
    ServerProcess process = ServerProcess.start("toxiproxy",
        List.of(binary.toString(), "-host", "127.0.0.1", "-port", Integer.toString(port)), Map.of(),
        workDir.resolve("toxiproxy.log"), api.resolve("/version"), Duration.ofSeconds(30));
    return new Toxiproxy(process, workDir, api);
  }

  /** A new proxy on a free loopback port in front of {@code upstream} (host:port of an HTTP URI). */
  public Proxy proxy(String name, URI upstream) throws IOException, InterruptedException {
    String body = String.format(Locale.ROOT, "{\"name\":\"%s\",\"listen\":\"127.0.0.1:%d\",\"upstream\":\"%s:%d\","
        + "\"enabled\":true}", name, TestTools.freeLoopbackPort(), upstream.getHost(), upstream.getPort());
    String response = call("POST", "/proxies", body, 201);
    Matcher listen = LISTEN.matcher(response);
    if (!listen.find()) {
      throw new IOException("Cannot create toxiproxy proxy " + name + ": no listen address in " + response);
    }
    return new Proxy(name, URI.create("http://" + listen.group(1)));
  }

  private String call(String method, String path, String body, int expectedStatus)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(api.resolve(path)).timeout(Duration.ofSeconds(10));
    request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != expectedStatus) {
      throw new IOException("Cannot " + method + " " + path + " on toxiproxy: HTTP " + response.statusCode() + " "
          + response.body());
    }
    return response.body();
  }

  @Override
  public void close() {
    process.close();
    try (var files = Files.list(workDir)) {
      files.forEach(file -> file.toFile().delete());
      Files.deleteIfExists(workDir);
    } catch (IOException ignored) {
      // A leftover log in /tmp is harmless.
    }
  }

  /** One proxy: clients connect to {@link #endpoint()} instead of the upstream server. */
  public final class Proxy {
    private final String name;
    private final URI endpoint;

    private Proxy(String name, URI endpoint) {
      this.name = name;
      this.endpoint = endpoint;
    }

    /** Where clients connect, for example {@code http://127.0.0.1:40111}. */
    public URI endpoint() {
      return endpoint;
    }

    /** Delays every response from the upstream by {@code latency}. */
    public Proxy latency(Duration latency) throws IOException, InterruptedException {
      return toxic("latency", "downstream", "{\"latency\":" + latency.toMillis() + ",\"jitter\":0}");
    }

    /** Caps the bandwidth from the upstream to the client (downloads), in KiB per second. */
    public Proxy bandwidth(long kibPerSecond) throws IOException, InterruptedException {
      return toxic("bandwidth", "downstream", "{\"rate\":" + kibPerSecond + "}");
    }

    /** Caps the bandwidth from the client to the upstream (uploads), in KiB per second. */
    public Proxy uploadBandwidth(long kibPerSecond) throws IOException, InterruptedException {
      return toxic("bandwidth", "upstream", "bandwidth_upstream", "{\"rate\":" + kibPerSecond + "}");
    }

    /** Resets every connection (TCP RST) once it has been open for {@code after}. */
    public Proxy resetPeer(Duration after) throws IOException, InterruptedException {
      return toxic("reset_peer", "upstream", "{\"timeout\":" + after.toMillis() + "}");
    }

    /** Removes the toxic of {@code type} added earlier. */
    public Proxy remove(String type) throws IOException, InterruptedException {
      call("DELETE", "/proxies/" + name + "/toxics/" + type, null, 204);
      return this;
    }

    private Proxy toxic(String type, String stream, String attributes) throws IOException, InterruptedException {
      return toxic(type, stream, type, attributes);
    }

    private Proxy toxic(String type, String stream, String toxicName, String attributes)
        throws IOException, InterruptedException {
      call("POST", "/proxies/" + name + "/toxics", "{\"name\":\"" + toxicName + "\",\"type\":\"" + type
          + "\",\"stream\":\"" + stream + "\",\"toxicity\":1.0,\"attributes\":" + attributes + "}", 200);
      return this;
    }
  }
}
