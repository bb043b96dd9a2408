package dev.quarry.core.sort.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.store.DelegatingStore;
import dev.quarry.core.store.FileStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The input list in scratch, in pages: what a 100 TiB job of 256 MiB inputs needs, and what a tampered page gets. */
class StoredInputsTest {
  @TempDir Path root;

  /**
   * 409,600 inputs (100 TiB of 256 MiB shards, 41 MB of JSON as one document): written as 100 pages, of which a
   * worker reads the summary and the page of the input it needs; the list as one document passes 64 MiB at about
   * 600,000 inputs, which the pages never do.
   */
  @Test
  void a100TibJobsInputsAreReadAPageAtATime() throws Exception {
    List<InputShard> inputs = new ArrayList<>();
    for (int index = 0; index < 409_600; index++) {
      inputs.add(new InputShard(index, String.format("s3://datasets/imagenet/train/shard-%06d.tar", index),
          ShardFormat.TAR));
    }
    Scratch scratch = new Scratch("scratch/");
    try (FileStore files = new FileStore(root)) {
      StoredInputs.write(files, scratch, inputs);
      List<String> read = new ArrayList<>();
      AtomicLong bytes = new AtomicLong();
      var counted = new DelegatingStore(files) {
        @Override
        public java.io.InputStream get(String key) throws java.io.IOException {
          read.add(key);
          bytes.addAndGet(files.head(key).orElseThrow().size());
          return super.get(key);
        }
      };
      StoredInputs stored = StoredInputs.read(counted, scratch, "plan",
          new SortSpec.Input("s3://datasets/imagenet/train/shard-{000000..409599}.tar", null, null, null));
      assertThat(stored.size()).isEqualTo(409_600);
      assertThat(stored.formats()).containsExactly(ShardFormat.TAR);
      assertThat(bytes.get()).as("bytes of the summary").isLessThan(200);
      assertThat(stored.get(300_001)).isEqualTo(inputs.get(300_001));
      assertThat(stored.get(300_002)).isEqualTo(inputs.get(300_002));
      assertThat(read).containsExactly("scratch/inputs.json", String.format("scratch/inputs/%06d.json",
          300_001 / StoredInputs.PAGE_SIZE));
      assertThat(bytes.get()).as("bytes read for two inputs of one page").isLessThan(512 * 1024);
    }
  }

  /** Shards s3://b/shard-000000.tar to -000019.tar, which the input "s3://b/shard-{000000..000019}.tar" gives. */
  private static List<InputShard> twentyInputs() {
    List<InputShard> inputs = new ArrayList<>();
    for (int index = 0; index < 20; index++) {
      inputs.add(new InputShard(index, String.format("s3://b/shard-%06d.tar", index), ShardFormat.TAR));
    }
    return inputs;
  }

  /**
   * A page being read holds up the readers of that page alone: a create worker's threads each waited for every page
   * being read, one after another, behind one lock. Here page 0's read waits until page 1 has been read by another
   * thread, and both pages are read once however many threads ask.
   */
  @Test
  void readersOfOnePageDoNotWaitForAnotherPagesRead() throws Exception {
    List<InputShard> inputs = twentyInputs();
    Scratch scratch = new Scratch("scratch/");
    try (FileStore files = new FileStore(root)) {
      StoredInputs.write(files, scratch, inputs, 10);
      java.util.concurrent.CountDownLatch firstPageReading = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch secondPageRead = new java.util.concurrent.CountDownLatch(1);
      java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> reads =
          new java.util.concurrent.ConcurrentHashMap<>();
      var latched = new DelegatingStore(files) {
        @Override
        public java.io.InputStream get(String key) throws java.io.IOException {
          reads.computeIfAbsent(key, page -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
          try {
            if (key.endsWith("/000000.json")) {
              firstPageReading.countDown();
            }
            if (key.endsWith("/000000.json")
                && !secondPageRead.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
              throw new java.io.IOException("page 1 was not read while page 0 was being read");
            }
          } catch (InterruptedException e) {
            throw new java.io.InterruptedIOException();
          }
          return super.get(key);
        }
      };
      StoredInputs stored = StoredInputs.read(latched, scratch, "create shards",
          new SortSpec.Input("s3://b/shard-{000000..000019}.tar", null, null, null));
      try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
        List<java.util.concurrent.Future<InputShard>> firstPage = new ArrayList<>();
        for (int thread = 0; thread < 4; thread++) {
          int index = thread;
          firstPage.add(threads.submit(() -> stored.get(index)));
        }
        assertThat(firstPageReading.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(stored.get(15)).isEqualTo(inputs.get(15));
        secondPageRead.countDown();
        for (int thread = 0; thread < 4; thread++) {
          assertThat(firstPage.get(thread).get()).isEqualTo(inputs.get(thread));
        }
      }
      assertThat(reads).containsOnlyKeys("scratch/inputs.json", "scratch/inputs/000000.json",
          "scratch/inputs/000001.json").allSatisfy((key, count) -> assertThat(count.get()).as(key).isEqualTo(1));
    }
  }

  /**
   * An Error while a page is read (out of memory, say) reaches its reader, and the next reader reads the page again:
   * the page was left unfinished, and every later reader of it waited forever (found by review).
   */
  @Test
  void anErrorReadingAPageReachesItsReaderAndTheNextReadsItAgain() throws Exception {
    List<InputShard> inputs = twentyInputs();
    Scratch scratch = new Scratch("scratch/");
    try (FileStore files = new FileStore(root)) {
      StoredInputs.write(files, scratch, inputs, 10);
      java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
      var failing = new DelegatingStore(files) {
        @Override
        public java.io.InputStream get(String key) throws java.io.IOException {
          if (key.contains("inputs/") && failed.compareAndSet(false, true)) {
            throw new OutOfMemoryError("Java heap space (in this test)");
          }
          return super.get(key);
        }
      };
      StoredInputs stored = StoredInputs.read(failing, scratch, "create shards",
          new SortSpec.Input("s3://b/shard-{000000..000019}.tar", null, null, null));
      assertThatThrownBy(() -> stored.get(1)).isInstanceOf(OutOfMemoryError.class);
      try (var thread = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
        assertThat(thread.submit(() -> stored.get(2)).get(10, java.util.concurrent.TimeUnit.SECONDS))
            .isEqualTo(inputs.get(2));
      }
    }
  }

  @Test
  void aPageOfOtherShardsOrAnotherSizeIsRefused() throws Exception {
    List<InputShard> inputs = new ArrayList<>();
    for (int index = 0; index < 10; index++) {
      inputs.add(new InputShard(index, "s3://b/in-" + index + ".tar", ShardFormat.TAR));
    }
    Scratch scratch = new Scratch("scratch/");
    try (FileStore files = new FileStore(root)) {
      StoredInputs.write(files, scratch, inputs, 4);
      StoredJson.write(files, scratch.inputsPage(1), inputs.subList(4, 7).toArray(InputShard[]::new));
      StoredJson.write(files, scratch.inputsPage(2), inputs.subList(0, 2).toArray(InputShard[]::new));
      StoredInputs stored = StoredInputs.read(files, scratch, "create shards",
          new SortSpec.Input("s3://b/in-{0..9}.tar", null, null, null));
      assertThat(stored.get(3)).isEqualTo(inputs.get(3));
      assertThatThrownBy(() -> stored.get(5)).hasMessage("Cannot read the input list: page 1 holds 3 shards, not"
          + " those from 4 (the scratch was changed; clean it and sort again)");
      assertThatThrownBy(() -> stored.get(9)).hasMessage("Cannot read the input list: input shard 8 is not where"
          + " page 2 has it (the scratch was changed; clean it and sort again)");
      assertThatThrownBy(() -> stored.get(10)).hasMessage("Cannot read a record of input shard 10: the job has 10"
          + " input shards (the scratch was changed; clean it and sort again)");
    }
  }

  /**
   * A page naming an object the job's input does not give is refused: create would otherwise copy the bytes of any
   * object it can read into an output shard. A template's name at its index, a list's entry, an object under the
   * prefix, in the format the spec or the name says.
   */
  @Test
  void aPageNamingAnObjectTheInputDoesNotGiveIsRefused() throws Exception {
    Scratch scratch = new Scratch("scratch/");
    String other = "Cannot read the input list: input shard 1 on page 0 is not one the job's input gives (the scratch"
        + " was changed; clean it and sort again)";
    List<SortSpec.Input> specs = List.of(new SortSpec.Input("s3://bkt/in/x-{0..2}.tar", null, null, null),
        new SortSpec.Input(null, null, List.of("s3://bkt/in/x-0.tar", "s3://bkt/in/x-1.tar", "s3://bkt/in/x-2.tar"), null),
        new SortSpec.Input(null, "s3://bkt/in/", null, null));
    for (SortSpec.Input input : specs) {
      for (InputShard forged : List.of(new InputShard(1, "s3://bkt/secrets/key.tar", ShardFormat.TAR),
          new InputShard(1, "s3://other/in/x-1.tar", ShardFormat.TAR),
          new InputShard(1, "s3://bkt/in/x-1.tar", ShardFormat.ZIP))) {
        try (FileStore files = new FileStore(root)) {
          List<InputShard> inputs = new ArrayList<>(List.of(new InputShard(0, "s3://bkt/in/x-0.tar", ShardFormat.TAR),
              forged, new InputShard(2, "s3://bkt/in/x-2.tar", ShardFormat.TAR)));
          StoredInputs.write(files, scratch, inputs);
          StoredInputs stored = StoredInputs.read(files, scratch, "create shards", input);
          assertThatThrownBy(() -> stored.get(0)).as(input + " " + forged).hasMessage(other);
          inputs.set(1, new InputShard(1, "s3://bkt/in/x-1.tar", ShardFormat.TAR));
          StoredInputs.write(files, scratch, inputs);
          assertThat(StoredInputs.read(files, scratch, "create shards", input).get(1)).isEqualTo(inputs.get(1));
        }
      }
    }
  }
}
