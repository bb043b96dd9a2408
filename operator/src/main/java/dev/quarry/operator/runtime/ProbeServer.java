package dev.quarry.operator.runtime;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.javaoperatorsdk.operator.RuntimeInfo;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The operator's HTTP endpoints: {@code /metrics} (Prometheus text), {@code /healthz} (liveness: the informers are
 * healthy) and {@code /readyz} (readiness: started and healthy). A replica waiting for leadership is ready: it is
 * healthy and takes over when the leader goes.
 */
public final class ProbeServer implements AutoCloseable {
  private final HttpServer server;

  public ProbeServer(int port, PrometheusMeterRegistry registry, Supplier<RuntimeInfo> runtime) throws IOException {
    server = HttpServer.create(new InetSocketAddress(port), 0);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/metrics", exchange -> respond(exchange, 200, registry.scrape(),
        "text/plain; version=0.0.4; charset=utf-8"));
    server.createContext("/healthz", exchange -> {
      RuntimeInfo info = runtime.get();
      boolean healthy = info == null || !info.isStarted() || info.allEventSourcesAreHealthy();
      respond(exchange, healthy ? 200 : 503, healthy ? "ok\n" : "unhealthy event sources: "
          + info.unhealthyEventSources().keySet() + "\n", "text/plain");
    });
    server.createContext("/readyz", exchange -> {
      RuntimeInfo info = runtime.get();
      boolean ready = info != null && info.isStarted() && info.allEventSourcesAreHealthy();
      respond(exchange, ready ? 200 : 503, ready ? "ok\n" : "starting\n", "text/plain");
    });
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange exchange, int code, String body, String type) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
