package dev.quarry.core.cache.plan;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * Exact 0/1 knapsack over byte-sized weights, where a dynamic program over capacity is out of the question (a 1 TiB
 * cache has 2^40 capacity units). Items are ordered by value per byte; variables whose Dembo-Hammer bound cannot
 * beat the greedy solution are fixed, and the rest are solved by Horowitz-Sahni depth-first branch and bound with
 * the Dantzig (linear relaxation) bound. Bounds are computed in doubles and widened by a few ulps, so pruning never
 * drops a better solution: the result is optimal unless the node budget runs out, which {@link Solution#exact()}
 * reports.
 */
public final class Knapsack {
  /** About 30 ms of search; only near-degenerate instances (every image read exactly once) get near it. */
  private static final long NODE_BUDGET = 5_000_000L;

  private Knapsack() {}

  /**
   * The chosen items, their total value, and whether the search proved it optimal; {@code upperBound} is the linear
   * relaxation's value, which no solution can exceed, so {@code upperBound - value} bounds the shortfall when the
   * search ran out of budget.
   */
  public record Solution(boolean[] chosen, long value, boolean exact, long upperBound, long nodes) {}

  /** Maximizes the summed values of chosen items whose summed weights fit in {@code capacity}. Weights are positive. */
  public static Solution solve(long[] weights, long[] values, long capacity) {
    int count = weights.length;
    Integer[] order = IntStream.range(0, count)
        .filter(i -> values[i] > 0 && weights[i] <= capacity)
        .boxed()
        .sorted(Comparator.comparingDouble((Integer i) -> -(double) values[i] / weights[i])
            .thenComparingLong(i -> weights[i]))
        .toArray(Integer[]::new);
    int n = order.length;
    long[] w = new long[n];
    long[] p = new long[n];
    for (int k = 0; k < n; k++) {
      w[k] = weights[order[k]];
      p[k] = values[order[k]];
    }
    Search search = new Search(w, p, capacity);
    boolean[] taken = search.run();
    boolean[] chosen = new boolean[count];
    for (int k = 0; k < n; k++) {
      chosen[order[k]] = taken[k];
    }
    boolean exact = search.nodes <= NODE_BUDGET;
    return new Solution(chosen, search.best, exact, exact ? search.best : search.rootBound(), search.nodes);
  }

  /** The branch and bound over items sorted by value per byte. */
  private static final class Search {
    private final long[] w;
    private final long[] p;
    private final long capacity;
    private final long[] prefixW;
    private final long[] prefixP;
    private long best;
    private long nodes;

    Search(long[] w, long[] p, long capacity) {
      this.w = w;
      this.p = p;
      this.capacity = capacity;
      int n = w.length;
      prefixW = new long[n + 1];
      prefixP = new long[n + 1];
      for (int k = 0; k < n; k++) {
        prefixW[k + 1] = Math.addExact(prefixW[k], w[k]);
        prefixP[k + 1] = Math.addExact(prefixP[k], p[k]);
      }
    }

    long rootBound() {
      return w.length == 0 ? 0 : upperBound(0, capacity);
    }

    boolean[] run() {
      int n = w.length;
      boolean[] incumbent = greedy();
      best = valueOf(incumbent);
      // Fix variables: the break item splits the linear relaxation into ones before and zeros after it.
      int breakItem = breakIndex(0, capacity);
      if (breakItem == n) {
        return incumbent; // everything fits
      }
      double rate = (double) p[breakItem] / w[breakItem];
      double relaxed = prefixP[breakItem] + (capacity - prefixW[breakItem]) * rate;
      byte[] fixed = new byte[n]; // 0 free, 1 fixed in, 2 fixed out
      long fixedInWeight = 0;
      long fixedInValue = 0;
      for (int k = 0; k < n; k++) {
        double flipBound = relaxed - Math.abs(p[k] - w[k] * rate);
        if (flipBound + slack(relaxed) < best) {
          fixed[k] = k < breakItem ? (byte) 1 : (byte) 2;
          if (k < breakItem) {
            fixedInWeight += w[k];
            fixedInValue += p[k];
          }
        }
      }
      // Items fixed in all precede the break item, so they fit: prefixW[breakItem] <= capacity.
      int[] free = IntStream.range(0, n).filter(k -> fixed[k] == 0).toArray();
      Search core = new Search(pick(w, free), pick(p, free), capacity - fixedInWeight);
      core.best = best - fixedInValue - 1; // find any core solution at least as good as the incumbent
      boolean[] coreTaken = core.branchAndBound();
      nodes = core.nodes;
      if (core.best + fixedInValue > best && coreTaken != null) {
        boolean[] result = new boolean[n];
        for (int k = 0; k < n; k++) {
          result[k] = fixed[k] == 1;
        }
        for (int f = 0; f < free.length; f++) {
          result[free[f]] = coreTaken[f];
        }
        best = core.best + fixedInValue;
        return result;
      }
      return incumbent;
    }

    /** Horowitz-Sahni: go greedily forward, record leaves that beat the best, backtrack over the last item taken. */
    boolean[] branchAndBound() {
      int n = w.length;
      boolean[] current = new boolean[n];
      boolean[] bestTaken = null;
      int[] takenStack = new int[n];
      int top = 0;
      long room = capacity;
      long value = 0;
      int j = 0;
      while (nodes++ <= NODE_BUDGET) {
        boolean prune = false;
        if (j < n) {
          prune = value + upperBound(j, room) <= best;
          if (!prune) {
            while (j < n && w[j] <= room) {
              room -= w[j];
              value += p[j];
              current[j] = true;
              takenStack[top++] = j;
              j++;
            }
            if (j < n) {
              j++; // item j does not fit: leave it out and bound again
              continue;
            }
          }
        }
        if (!prune && value > best) {
          best = value;
          bestTaken = current.clone();
        }
        if (top == 0) {
          break;
        }
        int last = takenStack[--top];
        current[last] = false;
        room += w[last];
        value -= p[last];
        j = last + 1;
      }
      return bestTaken;
    }

    /** The linear relaxation's value over items from {@code from} with {@code room} left, rounded up safely. */
    private long upperBound(int from, long room) {
      int r = breakIndex(from, room);
      long whole = prefixP[r] - prefixP[from];
      if (r == w.length) {
        return whole;
      }
      long left = room - (prefixW[r] - prefixW[from]);
      if (Math.multiplyHigh(left, p[r]) == 0 && left * p[r] >= 0) {
        return whole + left * p[r] / w[r]; // exact: lets a perfect fill prune everything after it
      }
      double fraction = (double) left * p[r] / w[r];
      return whole + (long) Math.ceil(fraction + slack(fraction + whole));
    }

    /** The first item from {@code from} that no longer fits when all before it are taken with {@code room}. */
    private int breakIndex(int from, long room) {
      long limit = prefixW[from] + room;
      int lo = from;
      int hi = w.length; // answer in [from, n]
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (prefixW[mid + 1] <= limit) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    }

    private boolean[] greedy() {
      boolean[] taken = new boolean[w.length];
      long room = capacity;
      for (int k = 0; k < w.length; k++) {
        if (w[k] <= room) {
          taken[k] = true;
          room -= w[k];
        }
      }
      return taken;
    }

    private long valueOf(boolean[] taken) {
      long sum = 0;
      for (int k = 0; k < taken.length; k++) {
        if (taken[k]) {
          sum += p[k];
        }
      }
      return sum;
    }

    private static double slack(double magnitude) {
      return 4 * Math.ulp(Math.abs(magnitude)) + 1;
    }

    private static long[] pick(long[] from, int[] indexes) {
      return Arrays.stream(indexes).mapToLong(k -> from[k]).toArray();
    }
  }
}
