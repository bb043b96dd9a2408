package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.commons.io.output.NullOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Property: a gc that deletes with no grace period, racing a push of a version that reuses an unreferenced old
 * version's objects, never leaves a ref or manifest naming a missing object. Each seed gives every request a random
 * delay, so the two interleave differently at request granularity.
 */
class GcRacesPushTest {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  @TempDir Path temp;

  static List<Long> seeds() {
    List<Long> seeds = new ArrayList<>();
    for (long seed = 1; seed <= 40; seed++) {
      seeds.add(seed);
    }
    return seeds;
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void noInterleavingLosesAReachableObject(long seed) throws Exception {
    Random random = new Random(seed);
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      DelegatingStore jittery = new DelegatingStore(files) {
        @Override
        public void before(String kind, String key) throws IOException {
          long delay;
          synchronized (random) {
            delay = random.nextInt(4) == 0 ? random.nextInt(3) : 0;
          }
          try {
            Thread.sleep(delay);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
          }
        }
      };
      CasRemote remote = new CasRemote(jittery, "cas", 4);
      Path old = tree(temp.resolve("old"), 0, 30);
      try (SyncSession session = new SyncSession(old, null, remote, QUIET)) {
        Push.run(session, "old", Push.Options.defaults());
      }
      files.delete("cas/refs/old"); // now every old object is garbage, but the new version reuses most of them
      Path fresh = tree(temp.resolve("new"), 10, 40);
      Thread.sleep(5); // the old objects are older than the gc's start: deletable with no grace period

      try (ExecutorService both = Executors.newVirtualThreadPerTaskExecutor()) {
        int pushDelay = random.nextInt(40);
        int gcDelay = random.nextInt(40);
        Future<?> push = both.submit((Callable<Void>) () -> {
          Thread.sleep(pushDelay);
          try (SyncSession session = new SyncSession(fresh, null, remote, QUIET)) {
            Push.run(session, "latest", Push.Options.defaults());
          }
          return null;
        });
        Future<?> gc = both.submit((Callable<Void>) () -> {
          Thread.sleep(gcDelay);
          Path state = temp.resolve("gc");
          try (SyncSession session = new SyncSession(state, state, remote, QUIET)) {
            GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, Duration.ZERO));
          }
          return null;
        });
        push.get();
        gc.get();
      }
      assertThat(RemoteInvariant.violations(remote)).as("seed %d", seed).isEmpty();
      assertThat(remote.readRef("latest")).isPresent();
    }
  }

  /**
   * The interleaving random delays rarely hit, held step by step ({@link HeldInterleaving}): a gc that read the refs
   * before the leases deleted the old objects the new version reuses.
   */
  @Test
  void aPushThatPassedTheFenceAndEndsWhileGcMarksKeepsItsObjects() throws Exception {
    try (FileStore files = new FileStore(temp.resolve("remote"))) {
      HeldInterleaving.assertPushSurvives(files, temp);
    }
  }

  /** Files {@code from} to {@code to} (exclusive) in a few folders; overlapping ranges share content and subtrees. */
  static Path tree(Path root, int from, int to) throws IOException {
    for (int i = from; i < to; i++) {
      Path file = root.resolve("f" + i / 10 + "/" + i);
      Files.createDirectories(file.getParent());
      Files.writeString(file, "content " + i);
    }
    return root;
  }
}
