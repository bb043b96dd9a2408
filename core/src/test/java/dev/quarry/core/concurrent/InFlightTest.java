package dev.quarry.core.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class InFlightTest {
  private static final List<Integer> ITEMS = IntStream.range(0, 200).boxed().toList();

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
}
