package dev.quarry.core.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LazyTest {
  @Test
  void manyThreadsAskingAtOnceBuildTheValueOnce() throws Exception {
    AtomicInteger builds = new AtomicInteger();
    Lazy<Object> lazy = new Lazy<>(() -> {
      builds.incrementAndGet();
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new Object();
    });

    List<Future<Object>> answers = new ArrayList<>();
    try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 100; i++) {
        answers.add(threads.submit(lazy::get));
      }
    }

    Object first = answers.getFirst().get();
    for (Future<Object> answer : answers) {
      assertThat(answer.get()).isSameAs(first);
    }
    assertThat(builds).hasValue(1);
  }

  @Test
  void ifBuiltNeverBuildsAndRunsOnlyOnceBuilt() {
    AtomicInteger builds = new AtomicInteger();
    Lazy<String> lazy = new Lazy<>(() -> "value " + builds.incrementAndGet());
    List<String> seen = new ArrayList<>();

    lazy.ifBuilt(seen::add);
    assertThat(builds).hasValue(0);
    assertThat(seen).isEmpty();

    assertThat(lazy.get()).isEqualTo("value 1");
    lazy.ifBuilt(seen::add);
    assertThat(seen).containsExactly("value 1");
  }
}
