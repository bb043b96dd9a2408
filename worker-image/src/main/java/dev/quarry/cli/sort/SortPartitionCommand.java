package dev.quarry.cli.sort;

import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.sort.SortPhases;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code quarry sort partition}: the merge, dedupe and order of one partition's records. */
@Command(name = "partition", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = PhaseSpecOptions.class,
    description = {"Between extract and plan, one step per partition (--count is extract's --partitions): merges"
        + " every extract worker's runs of partition --index, drops duplicate keys per policy, orders the records"
        + " and writes them and their counts under --scratch (for content and none orders, the runs of a key-hash"
        + " range, written as one ordered list per partition). Idempotent, as the other phases.", ""})
public final class SortPartitionCommand extends PhaseCommand {
  @Mixin WorkerIndex worker;

  @Option(names = "--extract-count", required = true, description = "The number of extract workers that ran.")
  int extractCount;

  @Option(names = "--then-plan", description = "If this is the last partition step to finish, also run the plan"
      + " phase (as quarry sort plan --extract-count COUNT), so that no process starts just for it.")
  boolean thenPlan;

  @Override
  List<PhaseResult> run(SortPhases phases) throws Exception {
    return thenPlan ? phases.partitionThenPlan(worker.index(), worker.count(), extractCount)
        : List.of(phases.partition(worker.index(), worker.count(), extractCount));
  }
}
