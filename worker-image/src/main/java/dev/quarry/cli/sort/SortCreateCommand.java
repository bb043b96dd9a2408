package dev.quarry.cli.sort;

import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.sort.SortPhases;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code quarry sort create}: one create worker's share of the output shards. */
@Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Phase 3: builds this worker's share of the planned output shards, each a multipart upload"
        + " committed only when whole. Idempotent: shards already created are skipped, the rest rewritten"
        + " identically.", ""})
public final class SortCreateCommand extends PhaseCommand {
  @Mixin WorkerIndex worker;

  @Override
  PhaseResult run(SortPhases phases) throws Exception {
    return phases.create(worker.index(), worker.count());
  }
}
