package dev.quarry.core.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.gc.GarbageCollector;
import dev.quarry.core.sync.push.Push;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.io.output.NullOutputStream;

/**
 * The gc and push interleaving of issue 18 (finding 2), held step by step with latches in a store wrapper: the push
 * passes the gc fence before the gc writes its marker, then waits; the gc reaches its lease listing and waits there
 * until the push has written its ref and released its lease. A gc that read the refs before the leases saw neither,
 * and deleted the old objects the new version reuses.
 */
final class HeldInterleaving {
  private static final PrintStream QUIET = new PrintStream(NullOutputStream.INSTANCE);

  private HeldInterleaving() {}

  /** Runs the interleaving on a remote {@code cas/} of {@code base}, and checks the pushed version is whole. */
  static void assertPushSurvives(ObjectStore base, Path temp) throws Exception {
    CountDownLatch pushPastFence = new CountDownLatch(1);
    CountDownLatch gcAtLeases = new CountDownLatch(1);
    CountDownLatch pushDone = new CountDownLatch(1);
    AtomicBoolean pushHeld = new AtomicBoolean();
    AtomicBoolean gcHeld = new AtomicBoolean();
    DelegatingStore held = new DelegatingStore(base) {
      @Override
      public void before(String kind, String key) throws IOException {
        if (kind.equals("GET") && key.equals("cas/refs/latest") && !pushHeld.getAndSet(true)) {
          pushPastFence.countDown();
          await(gcAtLeases);
        } else if (kind.equals("LIST") && key.equals("cas/leases/") && !gcHeld.getAndSet(true)) {
          gcAtLeases.countDown();
          await(pushDone);
        }
      }
    };
    CasRemote remote = new CasRemote(held, "cas", 4);
    try (SyncSession session = new SyncSession(GcRacesPushTest.tree(temp.resolve("old"), 0, 30), null, remote,
        QUIET)) {
      Push.run(session, "old", Push.Options.defaults());
    }
    base.delete("cas/refs/old"); // the old version is garbage now, but the new one reuses most of it
    Path fresh = GcRacesPushTest.tree(temp.resolve("new"), 10, 40);
    Thread.sleep(1100); // older than the gc's start on stores with one-second times, deletable with no grace

    try (ExecutorService both = Executors.newVirtualThreadPerTaskExecutor()) {
      Future<?> push = both.submit((Callable<Void>) () -> {
        try (SyncSession session = new SyncSession(fresh, null, remote, QUIET)) {
          Push.run(session, "latest", Push.Options.defaults());
        } finally {
          pushDone.countDown();
        }
        return null;
      });
      await(pushPastFence);
      Future<?> gc = both.submit((Callable<Void>) () -> {
        Path state = temp.resolve("gc");
        try (SyncSession session = new SyncSession(state, state, remote, QUIET)) {
          // No retention: the old version's log entry must not be what saves it.
          GarbageCollector.run(session, new GarbageCollector.Options(false, Duration.ZERO, Duration.ZERO));
        }
        return null;
      });
      push.get(60, TimeUnit.SECONDS);
      gc.get(60, TimeUnit.SECONDS);
    }
    assertThat(remote.readRef("latest")).isPresent();
    assertThat(RemoteInvariant.violations(remote)).isEmpty();
  }

  private static void await(CountDownLatch latch) throws IOException {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IOException("test step not reached in 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException();
    }
  }
}
