package dev.quarry.cli.sort;

import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.sort.SortPhases;
import dev.quarry.core.sort.plan.Partitioner;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code quarry sort extract}: one extract worker's share of the job. */
@Command(name = "extract", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = PhaseSpecOptions.class,
    description = {"Phase 1: reads this worker's share of the input shards and writes its records' entries as sorted"
        + " runs under --scratch, split into --partitions. Idempotent: rerunning an index that finished does"
        + " nothing; one that died starts over.", ""})
public final class SortExtractCommand extends PhaseCommand {
  @Mixin WorkerIndex worker;

  @Option(names = "--partitions", defaultValue = "1", description = "Split the records into this many partitions,"
      + " each merged and ordered by its own quarry sort partition step, best the number of create workers"
      + " (shuffle and md5 spread records over them by their hash, alphanumeric, keymap and content by keys sampled"
      + " from the input, none by input shard; content and none steps dedupe by key-hash range), at most 99999."
      + " Default: ${DEFAULT-VALUE}.")
  int partitions;

  @Option(names = "--then-plan", description = "If this is the last extract worker to finish, also run the plan"
      + " phase (as quarry sort plan --extract-count COUNT, which runs the partition steps not run yet), so that no"
      + " process starts just for it.")
  boolean thenPlan;

  @Override
  List<PhaseResult> run(SortPhases phases) throws Exception {
    if (partitions < 1 || partitions > Partitioner.MAX_PARTITIONS) {
      throw new IllegalArgumentException("Invalid --partitions: " + partitions + " (must be from 1 to "
          + Partitioner.MAX_PARTITIONS + ")");
    }
    return thenPlan ? phases.extractThenPlan(worker.index(), worker.count(), partitions)
        : List.of(phases.extract(worker.index(), worker.count(), partitions));
  }
}
