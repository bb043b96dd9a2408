package dev.quarry.core.sort.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.extract.SegmentTable;
import dev.quarry.core.store.FileStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackSegmentsTest {
  @TempDir Path root;

  private static List<PlanSummary.ExtractPack> packs(int workers) {
    List<PlanSummary.ExtractPack> packs = new ArrayList<>();
    for (int worker = 0; worker < workers; worker++) {
      packs.add(new PlanSummary.ExtractPack(worker, worker + 1, "scratch/packs/extract-" + worker, 100));
    }
    return packs;
  }

  /**
   * A partition's column is read once however many readers ask at once (a create worker's fetch asks for every
   * pack's segment, 16 at a time): the readers wait for the one read. Before, each reader that came before the first
   * read ended read it too (16 reads of 16 packs' column). The second reader is let in while the first reads.
   */
  @Test
  void readersOfOnePartitionAtOnceReadItsColumnOnce() throws Exception {
    int workers = 16;
    AtomicInteger reads = new AtomicInteger();
    CountDownLatch allAsked = new CountDownLatch(workers);
    PackSegments segments = new PackSegments(packs(workers), partition -> {
      reads.incrementAndGet();
      try {
        allAsked.await(1, TimeUnit.SECONDS); // every reader is asking meanwhile
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException();
      }
      List<SegmentTable.Segment> column = new ArrayList<>();
      for (int worker = 0; worker < workers; worker++) {
        column.add(new SegmentTable.Segment(10, 20));
      }
      return column;
    });
    InFlight.all(InFlight.indexes(workers), workers, worker -> {
      allAsked.countDown();
      assertThat(segments.of(worker, 3)).isEqualTo(new SegmentTable.Segment(10, 20));
    });
    assertThat(reads).as("reads of partition 3's column").hasValue(1);
  }

  /**
   * The plan's document of a partition's segments, gone or changed, is refused in one line that says what to do:
   * the plan does not run again once done.
   */
  @Test
  void aColumnThatIsGoneOrNotOneSegmentInEachPackIsRefused() throws Exception {
    try (FileStore store = new FileStore(root)) {
      Scratch scratch = new Scratch("scratch/");
      PackSegments.write(store, scratch, new long[][] {{0, 40, 100}, null}, 2);
      List<PlanSummary.ExtractPack> packs = List.of(packs(1).getFirst(),
          new PlanSummary.ExtractPack(1, 2, null, 0));
      assertThat(new PackSegments(packs, PackSegments.written(store, scratch)).of(0, 1))
          .isEqualTo(new SegmentTable.Segment(40, 100));

      store.delete(scratch.planSegments(1));
      assertThatThrownBy(() -> new PackSegments(packs, PackSegments.written(store, scratch)).of(0, 1))
          .hasMessage("Cannot read partition 1 of the extract workers' packs: " + store.url(scratch.planSegments(1))
              + ", which the plan wrote, is gone (the scratch was changed; clean it and sort again)");
      for (String planted : List.of("null", "[[40, 101], null]", "[null, null]", "[[40, 100]]",
          "[[40, 100], [0, 0]]", "[[50, 40], null]")) {
        store.put(scratch.planSegments(1), planted.getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> new PackSegments(packs, PackSegments.written(store, scratch)).of(0, 1))
            .as(planted).hasMessageStartingWith("Cannot read ").hasMessageEndingWith(" and sort again)")
            .hasMessageNotContaining("\n");
      }
    }
  }
}
