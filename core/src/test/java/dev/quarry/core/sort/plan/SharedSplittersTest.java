package dev.quarry.core.sort.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.Member;
import dev.quarry.core.archive.Record;
import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.ScratchCleaning;
import dev.quarry.core.sort.ScratchMarker;
import dev.quarry.core.sort.SortFixture;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Extract index 0 draws the sample and stores the splitters; the other indexes use them, each as its own process
 * with its own stores (whose request counts are its reads of the inputs): none when the splitters are there, none
 * when they come while it waits, and the sample, with the same splitters, when they never come.
 */
class SharedSplittersTest {
  private static final int PARTITIONS = 8;
  private static final Duration LONG = Duration.ofMinutes(10);

  @TempDir Path temp;
  private ObjectStores scratchStores;
  private Location scratchRoot;
  private Scratch scratch;
  private List<InputShard> inputs;
  private SortSpec spec;

  @BeforeEach
  void setUp() throws Exception {
    scratchStores = new ObjectStores(S3Settings.defaults());
    List<List<Record>> dataset = new ArrayList<>();
    for (int shard = 0; shard < 4; shard++) {
      List<Record> records = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        String key = String.format("k-%06d", shard * 300 + i);
        records.add(new Record(key, List.of(new Member(key + ".bin", new byte[1000]))));
      }
      dataset.add(records);
    }
    inputs = new ArrayList<>();
    try (ObjectStores writer = new ObjectStores(S3Settings.defaults())) {
      for (String url : SortFixture.write(writer, temp + "/in/", ShardFormat.TAR, dataset)) {
        inputs.add(new InputShard(inputs.size(), url, ShardFormat.TAR));
      }
    }
    scratchRoot = scratchStores.locate(temp + "/scratch/");
    scratch = new Scratch(scratchRoot.key());
    spec = new SortSpec(new SortSpec.Input(temp + "/in/in-{000..003}.tar", null, null, null),
        new SortSpec.Output(temp + "/out/x-{000..}.tar", null, null, 100L, null),
        new SortSpec.Order(OrderKind.ALPHANUMERIC, null, null, null, null), null, new SortSpec.Workers("32Mi", 8),
        null, false);
  }

  @AfterEach
  void tearDown() {
    scratchStores.close();
  }

  /** The splitters extract {@code index} uses, its input reads through {@code inputStores}. */
  private List<String> splitters(int index, ObjectStores inputStores, ObjectStore scratchStore, Duration wait)
      throws Exception {
    return Partitioner.sampled(spec, inputStores, inputs, PARTITIONS,
        new SharedSplitters(scratchStore, scratch, index, wait)).splitters();
  }

  private List<String> drawnByIndex0() throws Exception {
    try (ObjectStores worker0 = new ObjectStores(S3Settings.defaults())) {
      List<String> drawn = splitters(0, worker0, scratchRoot.store(), LONG);
      assertThat(worker0.requests().get()).as("index 0 reads the sample").isPositive();
      assertThat(drawn).hasSize(PARTITIONS - 1);
      return drawn;
    }
  }

  @Test
  void anIndexUsesTheStoredSplittersWithoutReadingTheSample() throws Exception {
    List<String> drawn = drawnByIndex0();
    assertThat(scratchRoot.store().head(scratch.splitters(PARTITIONS))).isPresent();
    try (ObjectStores worker1 = new ObjectStores(S3Settings.defaults())) {
      assertThat(splitters(1, worker1, scratchRoot.store(), LONG)).isEqualTo(drawn);
      assertThat(worker1.requests().total()).as("index 1's reads of the inputs").isZero();
    }
    try (ObjectStores rerun0 = new ObjectStores(S3Settings.defaults())) {
      assertThat(splitters(0, rerun0, scratchRoot.store(), LONG)).isEqualTo(drawn);
      assertThat(rerun0.requests().total()).as("a rerun of index 0 uses what the others used").isZero();
    }
  }

  @Test
  void anIndexWaitsForIndex0sSplitters() throws Exception {
    String key = scratch.splitters(PARTITIONS);
    CountDownLatch polled = new CountDownLatch(1);
    ObjectStore watched = DelegatingStore.withHook(scratchRoot.store(), (kind, name) -> {
      if (name.equals(key)) {
        polled.countDown();
      }
    });
    try (ObjectStores worker1 = new ObjectStores(S3Settings.defaults());
        ExecutorService thread = Executors.newSingleThreadExecutor()) {
      Future<List<String>> waiting = thread.submit(() -> splitters(1, worker1, watched, LONG));
      assertThat(polled.await(1, java.util.concurrent.TimeUnit.MINUTES)).as("index 1 looked for them").isTrue();
      List<String> drawn = drawnByIndex0(); // after index 1 found none, and within its wait of ten minutes
      assertThat(waiting.get()).isEqualTo(drawn);
      assertThat(worker1.requests().total()).as("index 1's reads of the inputs").isZero();
    }
  }

  @Test
  void anIndexDrawsTheSameSplittersItselfWhenIndex0sNeverComeAndStoresThemForThoseStartingLater()
      throws Exception {
    List<String> own;
    try (ObjectStores worker1 = new ObjectStores(S3Settings.defaults())) {
      own = splitters(1, worker1, scratchRoot.store(), Duration.ofMillis(200));
      assertThat(worker1.requests().get()).as("index 1 reads the sample").isPositive();
    }
    assertThat(scratchRoot.store().head(scratch.splitters(PARTITIONS))).as("stored by index 1").isPresent();
    try (ObjectStores worker2 = new ObjectStores(S3Settings.defaults())) {
      assertThat(splitters(2, worker2, scratchRoot.store(), Duration.ofMillis(200))).isEqualTo(own);
      assertThat(worker2.requests().total()).as("index 2, started later, reads no sample").isZero();
    }
    scratchRoot.store().delete(scratch.splitters(PARTITIONS));
    assertThat(drawnByIndex0()).isEqualTo(own);
  }

  /**
   * Index 0 never comes, and indexes 1 and 2 claim the draw at the same moment (a barrier before their claims): only
   * the one whose claim lands reads the sample, and the other uses its splitters. Before claims, each index that
   * waited in vain drew the sample itself: W - 1 draws of up to 256 MiB for one late index 0.
   */
  @Test
  void indexesWhoseWaitForIndex0EndsTogetherDrawTheSampleOnce() throws Exception {
    String claim = scratch.splittersClaim(PARTITIONS, 1);
    String stored = scratch.splitters(PARTITIONS);
    java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
    java.util.concurrent.atomic.AtomicBoolean claimed = new java.util.concurrent.atomic.AtomicBoolean();
    ObjectStore claimingTogether = DelegatingStore.withHook(scratchRoot.store(), (kind, name) -> {
      try {
        if (name.equals(claim)) {
          together.await(1, java.util.concurrent.TimeUnit.MINUTES);
          claimed.set(true);
        } else if (name.equals(stored) && kind.equals("GET") && claimed.get()) {
          // The loser looks for the splitters once the winner has stored them, however long its draw took.
          long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
          while (scratchRoot.store().head(stored).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
          }
        }
      } catch (Exception e) {
        throw new java.io.IOException("the other index never came", e);
      }
    });
    Duration wait = Duration.ofMillis(200);
    try (ObjectStores worker1 = new ObjectStores(S3Settings.defaults());
        ObjectStores worker2 = new ObjectStores(S3Settings.defaults());
        ExecutorService threads = Executors.newFixedThreadPool(2)) {
      Future<List<String>> index1 = threads.submit(() -> splitters(1, worker1, claimingTogether, wait));
      Future<List<String>> index2 = threads.submit(() -> splitters(2, worker2, claimingTogether, wait));
      assertThat(index1.get()).isEqualTo(index2.get()).hasSize(PARTITIONS - 1);
      assertThat(List.of(worker1.requests().total(), worker2.requests().total()))
          .as("reads of the inputs by index 1 and index 2: one drew the sample").filteredOn(reads -> reads > 0)
          .hasSize(1);
    }
    assertThat(scratchRoot.store().head(claim)).as("the winner's claim").isPresent();
  }

  /**
   * A claimant that died before storing the splitters (its claim of round 1 is there, no splitters): an index waits
   * one more wait for them, claims round 2, draws, and stores them; clean deletes the claims with the rest.
   */
  @Test
  void anIndexDrawsAfterAClaimantThatNeverStoredTheSplittersAndCleanDeletesTheClaims() throws Exception {
    ScratchMarker job = ScratchMarker.of(spec);
    job.claim(scratchRoot);
    scratchRoot.store().put(scratch.splittersClaim(PARTITIONS, 1),
        "{\"index\": 5, \"round\": 1}".getBytes(StandardCharsets.UTF_8));
    List<String> own;
    try (ObjectStores worker1 = new ObjectStores(S3Settings.defaults())) {
      own = splitters(1, worker1, scratchRoot.store(), Duration.ofMillis(200));
      assertThat(worker1.requests().get()).as("index 1 reads the sample").isPositive();
    }
    assertThat(scratchRoot.store().head(scratch.splitters(PARTITIONS))).as("stored by index 1").isPresent();
    assertThat(scratchRoot.store().head(scratch.splittersClaim(PARTITIONS, 2))).as("index 1's claim").isPresent();

    ScratchCleaning.clean(scratchRoot, job);
    assertThat(scratchRoot.store().listAll(scratchRoot.key()).toList()).as("left after clean").isEmpty();
  }

  /**
   * Three rounds claimed by indexes that died: an index gives the newest one wait and claims round 4, one claim in
   * all, where it walked the rounds one wait and one claim at a time (after a remedy's rerun, one wait per claim left).
   */
  @Test
  void anIndexClaimsTheRoundAfterTheLastClaimedRatherThanWalkingThem() throws Exception {
    for (int round = 1; round <= 3; round++) {
      scratchRoot.store().put(scratch.splittersClaim(PARTITIONS, round),
          ("{\"index\": 5, \"round\": " + round + "}").getBytes(StandardCharsets.UTF_8));
    }
    List<String> claims = java.util.Collections.synchronizedList(new ArrayList<>());
    ObjectStore counted = DelegatingStore.withHook(scratchRoot.store(), (kind, name) -> {
      if (kind.equals("PUT") && name.startsWith(scratch.splittersClaims(PARTITIONS))) {
        claims.add(name.substring(name.lastIndexOf('/') + 1));
      }
    });
    try (ObjectStores worker1 = new ObjectStores(S3Settings.defaults())) {
      splitters(1, worker1, counted, Duration.ofMillis(100));
      assertThat(worker1.requests().get()).as("index 1 reads the sample").isPositive();
    }
    assertThat(claims).containsExactly(String.format("splitters-%05d.claim-4.json", PARTITIONS));
  }

  @Test
  void storedSplittersThatAreNotTheJobsAreRefusedInOneLine() throws Exception {
    String key = scratch.splitters(PARTITIONS);
    String url = scratchRoot.store().url(key);
    String remedy = " (it was changed or is corrupt; delete it and run extract again)";
    String[][] cases = {
        {"{\"partitions\": 8, \"splitters\": [\"b\", \"a\"]}", "its splitters are not strictly increasing"},
        {"{\"partitions\": 8, \"splitters\": [\"a\", \"a\"]}", "its splitters are not strictly increasing"},
        {"{\"partitions\": 8, \"splitters\": [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\"]}",
            "it holds 8 splitters (must be at most 7)"},
        {"{\"partitions\": 4, \"splitters\": [\"a\"]}", "it is not the splitters of 8 partitions"},
        {"{\"partitions\": 8, \"splitters\": [\"a\", null]}", "a splitter is not a string"},
    };
    for (String[] garbled : cases) {
      scratchRoot.store().put(key, garbled[0].getBytes(StandardCharsets.UTF_8));
      for (int index : new int[] {0, 1}) {
        try (ObjectStores worker = new ObjectStores(S3Settings.defaults())) {
          assertThatThrownBy(() -> splitters(index, worker, scratchRoot.store(), LONG)).as(garbled[0])
              .hasMessage("Cannot read " + url + ": " + garbled[1] + remedy);
          assertThat(worker.requests().total()).isZero();
        }
      }
    }
    scratchRoot.store().put(key, "{\"partitions\": 8, \"splitters\": [".getBytes(StandardCharsets.UTF_8));
    try (ObjectStores worker = new ObjectStores(S3Settings.defaults())) {
      assertThatThrownBy(() -> splitters(1, worker, scratchRoot.store(), LONG))
          .hasMessage("Cannot read " + url + ": it is not a valid Splitters document" + remedy);
    }
  }
}
