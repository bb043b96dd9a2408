package dev.quarry.cli.sort;

import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.sort.SortPhases;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code quarry sort plan}: merges the runs, orders the records and cuts them into output shards. */
@Command(name = "plan", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = PhaseSpecOptions.class,
    description = {"Phase 2: runs the partition steps that have not run (see quarry sort partition), then cuts the"
        + " ordered records into output shards from the partitions' counts alone and writes the plan under"
        + " --scratch. With --dry-run this is the last phase: the plan is printed and no shard written.", ""})
public final class SortPlanCommand extends PhaseCommand {
  @Option(names = "--extract-count", required = true, description = "The number of extract workers that ran.")
  int extractCount;

  @Override
  List<PhaseResult> run(SortPhases phases) throws Exception {
    return List.of(phases.plan(extractCount));
  }
}
