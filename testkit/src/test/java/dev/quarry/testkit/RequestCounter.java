package dev.quarry.testkit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/** Counts the HTTP requests an S3 client really sends (retries included), by method. */
final class RequestCounter implements ExecutionInterceptor {
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  @Override
  public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
    counts.computeIfAbsent(context.httpRequest().method().name(), m -> new AtomicLong()).incrementAndGet();
  }

  long count(String method) {
    AtomicLong count = counts.get(method);
    return count == null ? 0 : count.get();
  }

  long total() {
    return counts.values().stream().mapToLong(AtomicLong::get).sum();
  }

  void reset() {
    counts.clear();
  }
}
