package dev.quarry.core.sort;

import dev.quarry.core.sort.extract.LocalPacks;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * All phases in one process ({@code quarry sort run}): the same code as the worker pods, with scratch in a local
 * folder and every input shard's raw bytes kept in memory under half the budget (spilling to that folder beyond it),
 * so each input byte is read once. The output is byte-identical to a distributed run of the same spec.
 */
public final class LocalSort {
  private LocalSort() {}

  /** Runs every phase; the results in phase order. The work folder is removed afterwards. */
  public static List<PhaseResult> run(SortSpec spec, ObjectStores stores, Path workDir, PrintStream log)
      throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    List<PhaseResult> results = new ArrayList<>();
    // Half the budget holds record bytes; extract's record metadata takes the other half.
    try (LocalPacks packs = new LocalPacks(workDir.resolve("packs"), spec.workers().memoryBudgetBytes() / 2)) {
      Location scratch = stores.locate(workDir.resolve("scratch").toAbsolutePath() + "/");
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
    } catch (IOException | InterruptedException | RuntimeException failure) {
      try {
        deleteRecursively(workDir);
      } catch (RuntimeException cleanup) {
        failure.addSuppressed(cleanup); // the job's own error is what the user needs to see
      }
      throw failure;
    }
    deleteRecursively(workDir);
    return results;
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.delete(path);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot remove work folder " + dir, e);
    }
  }
}
