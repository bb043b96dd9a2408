package dev.quarry.core.cache.agent;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/** The latest cache changes, newest last, bounded so the per-node status stays small. */
final class DecisionLog {
  private static final int KEPT = 20;
  private final Clock clock;
  private final Deque<Decision> decisions = new ArrayDeque<>();

  DecisionLog(Clock clock) {
    this.clock = clock;
  }

  synchronized void add(String image, String action, String reason) {
    decisions.addLast(new Decision(clock.instant(), image, action, reason));
    while (decisions.size() > KEPT) {
      decisions.removeFirst();
    }
  }

  synchronized List<Decision> latest() {
    return List.copyOf(decisions);
  }
}
