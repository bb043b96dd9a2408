package dev.quarry.cli.sort;

import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.sort.SortPhases;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code quarry sort extract}: one extract worker's share of the job. */
@Command(name = "extract", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Phase 1: reads this worker's share of the input shards and writes its records' entries as sorted"
        + " runs under --scratch. Idempotent: rerunning an index that finished does nothing; one that died starts"
        + " over.", ""})
public final class SortExtractCommand extends PhaseCommand {
  @Mixin WorkerIndex worker;

  @Override
  PhaseResult run(SortPhases phases) throws Exception {
    return phases.extract(worker.index(), worker.count());
  }
}
