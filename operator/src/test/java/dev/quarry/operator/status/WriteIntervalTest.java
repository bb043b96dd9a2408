package dev.quarry.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.api.nodecache.NodeCache;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class WriteIntervalTest {
  private Instant now = Instant.parse("2026-11-26T10:00:00Z");
  private final Clock clock = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  };
  private final WriteInterval interval = new WriteInterval(Duration.ofSeconds(10), clock);

  @Test
  void aWriteWaitsForTheIntervalSinceTheLastOneOfTheSameResource() {
    NodeCache images = cache("images", "uid-1");
    NodeCache other = cache("other", "uid-2");
    assertThat(interval.remaining(images)).as("never written").isZero();

    interval.wrote(images);
    now = now.plusSeconds(4);
    assertThat(interval.remaining(images)).isEqualTo(Duration.ofSeconds(6));
    assertThat(interval.remaining(other)).as("another resource").isZero();

    now = now.plusSeconds(6);
    assertThat(interval.remaining(images)).isZero();
    now = now.plusSeconds(60);
    assertThat(interval.remaining(images)).isZero();
  }

  @Test
  void aDeletedResourceIsForgotten() {
    NodeCache images = cache("images", "uid-1");
    interval.wrote(images);
    interval.forget(images);
    assertThat(interval.remaining(cache("images", "uid-1"))).isZero();
  }

  private static NodeCache cache(String name, String uid) {
    NodeCache cache = new NodeCache();
    cache.setMetadata(new ObjectMetaBuilder().withName(name).withUid(uid).build());
    return cache;
  }
}
