package dev.quarry.cli.sort;

import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.sort.SortPhases;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code quarry sort create}: one create worker's share of the output shards. */
@Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = PhaseSpecOptions.class,
    description = {"Phase 3: builds this worker's share of the planned output shards, each a multipart upload"
        + " committed only when whole; with --count equal to extract's --partitions (and records spread over"
        + " them), worker i builds the shards whose first record is in partition i. Idempotent: shards already created are skipped, the rest rewritten"
        + " identically.", ""})
public final class SortCreateCommand extends PhaseCommand {
  @Mixin WorkerIndex worker;

  @Option(names = "--then-commit", description = "If this is the last create worker to finish, also run the commit"
      + " phase (as quarry sort commit), so that no process starts just for it.")
  boolean thenCommit;

  @Override
  List<PhaseResult> run(SortPhases phases) throws Exception {
    return thenCommit ? phases.createThenCommit(worker.index(), worker.count())
        : List.of(phases.create(worker.index(), worker.count()));
  }
}
