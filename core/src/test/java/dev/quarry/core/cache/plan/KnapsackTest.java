package dev.quarry.core.cache.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KnapsackTest {
  @ParameterizedTest
  @ValueSource(strings = {"uncorrelated", "weakly", "strongly", "subset-sum"})
  void matchesDynamicProgrammingOnSmallInstances(String kind) {
    SplittableRandom random = new SplittableRandom(kind.hashCode());
    for (int round = 0; round < 400; round++) {
      int n = 1 + random.nextInt(40);
      long[] w = new long[n];
      long[] p = new long[n];
      long total = 0;
      for (int i = 0; i < n; i++) {
        w[i] = 1 + random.nextInt(100);
        p[i] = switch (kind) {
          case "uncorrelated" -> 1 + random.nextInt(100);
          case "weakly" -> Math.max(1, w[i] - 10 + random.nextInt(21));
          case "strongly" -> w[i] + 10;
          default -> w[i];
        };
        total += w[i];
      }
      long capacity = random.nextLong(total + 1);
      Knapsack.Solution solution = Knapsack.solve(w, p, capacity);
      assertThat(solution.exact()).isTrue();
      long weight = 0;
      long value = 0;
      for (int i = 0; i < n; i++) {
        if (solution.chosen()[i]) {
          weight += w[i];
          value += p[i];
        }
      }
      assertThat(weight).as("round %d fits", round).isLessThanOrEqualTo(capacity);
      assertThat(value).as("round %d value", round).isEqualTo(solution.value()).isEqualTo(optimum(w, p, (int) capacity));
    }
  }

  @Test
  void byteSizedWeightsAtScale() {
    SplittableRandom random = new SplittableRandom(7);
    int n = 10_000;
    long[] w = new long[n];
    long[] p = new long[n];
    for (int i = 0; i < n; i++) {
      w[i] = (1L << 30) + random.nextLong(1L << 37); // 1 GiB to 129 GiB
      p[i] = random.nextLong(1L << 37);
    }
    long capacity = 50L << 40;
    Knapsack.Solution solution = Knapsack.solve(w, p, capacity);
    assertThat(solution.exact()).isTrue();
    long weight = 0;
    for (int i = 0; i < n; i++) {
      weight += solution.chosen()[i] ? w[i] : 0;
    }
    assertThat(weight).isLessThanOrEqualTo(capacity);
  }

  @Test
  void skipsWorthlessAndOversizedItems() {
    Knapsack.Solution solution = Knapsack.solve(new long[] {5, 50, 5}, new long[] {0, 100, 3}, 10);
    assertThat(solution.chosen()).containsExactly(false, false, true);
    assertThat(solution.value()).isEqualTo(3);
  }

  private static long optimum(long[] w, long[] p, int capacity) {
    long[] best = new long[capacity + 1];
    for (int i = 0; i < w.length; i++) {
      for (int c = capacity; c >= w[i]; c--) {
        best[c] = Math.max(best[c], best[c - (int) w[i]] + p[i]);
      }
    }
    return best[capacity];
  }
}
