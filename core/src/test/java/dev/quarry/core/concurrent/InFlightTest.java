package dev.quarry.core.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InFlightTest {
  private static final List<Integer> ITEMS = InFlight.indexes(200);

  @Test
  void everyItemRunsAndFailuresAreReturnedPerItem() throws InterruptedException {
    Set<Integer> ran = ConcurrentHashMap.newKeySet();

    Map<Integer, Exception> failures = InFlight.forEach(ITEMS, 16, item -> {
      ran.add(item);
      if (item % 50 == 0) {
        throw new IOException("item " + item);
      }
    });

    assertThat(ran).hasSize(ITEMS.size());
    assertThat(failures).containsOnlyKeys(0, 50, 100, 150);
    assertThat(failures.get(50)).hasMessage("item 50");
  }

  @Test
  void anErrorReachesTheCallerAfterTheOtherItemsRanInsteadOfDyingWithItsThread() {
    Set<Integer> ran = ConcurrentHashMap.newKeySet();

    assertThatThrownBy(() -> InFlight.forEach(ITEMS, 16, item -> {
      ran.add(item);
      if (item == 7) {
        throw new ExceptionInInitializerError("a class failed to initialize");
      }
    })).isInstanceOf(ExceptionInInitializerError.class).hasMessage("a class failed to initialize");
    assertThat(ran).hasSize(ITEMS.size());
  }

  @Test
  void allThrowsTheFirstFailureAsAnIoException() {
    assertThatThrownBy(() -> InFlight.all(ITEMS, 4, item -> {
      if (item == 3) {
        throw new IOException("cannot read item 3");
      }
    })).isInstanceOf(IOException.class).hasMessageContaining("cannot read item 3");
  }

  @Test
  void indexesAreZeroToCountLessOne() {
    assertThat(InFlight.indexes(4)).containsExactly(0, 1, 2, 3);
    assertThat(InFlight.indexes(0)).isEmpty();
  }

  @Test
  void inOrderReturnsEachItemsResultInTheItemsOrderWhateverFinishedFirst() throws Exception {
    CountDownLatch lastStarted = new CountDownLatch(1);

    List<String> results = InFlight.inOrder(List.of(0, 1, 2), 3, item -> {
      if (item == 0) { // the first item finishes last
        assertThat(lastStarted.await(10, TimeUnit.SECONDS)).isTrue();
      }
      if (item == 2) {
        lastStarted.countDown();
      }
      return "item " + item;
    });

    assertThat(results).containsExactly("item 0", "item 1", "item 2");
  }

  @Test
  void inOrderRunsAtMostTheLimitAtOnce() throws Exception {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();

    InFlight.inOrder(ITEMS, 4, item -> {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      Thread.sleep(1);
      running.decrementAndGet();
      return item;
    });

    assertThat(most.get()).isBetween(1, 4);
  }

  @Test
  void inOrderRunsEveryItemThenThrowsTheFirstFailureInTheItemsOrder() {
    Set<Integer> ran = ConcurrentHashMap.newKeySet();
    CountDownLatch laterFailed = new CountDownLatch(1);

    assertThatThrownBy(() -> InFlight.inOrder(ITEMS, 16, item -> {
      ran.add(item);
      if (item == 150) {
        laterFailed.countDown();
        throw new IOException("cannot read item 150");
      }
      if (item == 7) { // fails after item 150 did
        assertThat(laterFailed.await(10, TimeUnit.SECONDS)).isTrue();
        throw new IOException("cannot read item 7");
      }
      return item;
    })).isInstanceOf(IOException.class).hasMessage("cannot read item 7");
    assertThat(ran).hasSize(ITEMS.size());
  }
}
