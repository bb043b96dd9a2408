package dev.quarry.core.sort;

import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.sort.extract.LocalPacks;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * All phases in one process ({@code quarry sort run}): the same code as the worker pods, with scratch in a local
 * folder and every input shard's raw bytes kept in memory outside the heap, within the budget's share for them
 * ({@link MemoryBudget#recordBytes}, spilling to that folder beyond it), so each input byte is read once from its
 * store; but for plain tars in local files, whose records create reads where they are. The output is byte-identical
 * to a distributed run of the same spec.
 */
public final class LocalSort {
  private LocalSort() {}

  /**
   * Runs every phase; the results in phase order. Spilled packs and scratch go to a {@link WorkFolder} made under
   * {@code workParent}, removed afterwards, whether the run succeeds, fails or is stopped.
   */
  public static List<PhaseResult> run(SortSpec spec, ObjectStores stores, Path workParent, PrintStream log)
      throws IOException, InterruptedException {
    List<PhaseResult> results = new ArrayList<>();
    try (WorkFolder work = WorkFolder.create(workParent, "quarry-sort-");
        LocalPacks packs = new LocalPacks(work.path().resolve("packs"), spec.workers().memory().recordBytes())) {
      // Removed when the run ends, and started over by a rerun: nothing in it needs to reach the disk.
      Location scratch = stores.locateUnsynced(work.path().resolve("scratch"));
      SortPhases phases = new SortPhases(spec, stores, scratch, packs, true, log);
      results.add(phases.extract(0, 1));
      // Record bytes held outside the heap, and those that a larger memory budget would have kept in memory.
      results.getLast().details().put("packBytesInMemory", packs.heldBytes());
      results.getLast().details().put("packBytesSpilled", packs.spilledBytes());
      results.add(phases.plan(1));
      if (!spec.isDryRun()) {
        results.add(phases.create(0, 1));
        results.add(phases.commit());
      }
    }
    return results;
  }
}
