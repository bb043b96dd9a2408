package dev.quarry.cli.sort;

import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.sort.SortPhases;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code quarry sort commit}: the manifest and WebDataset index, written last. */
@Command(name = "commit", mixinStandardHelpOptions = true,
    modelTransformer = PhaseSpecOptions.class,
    description = {"Writes the WebDataset wids index and then the manifest (names, sizes, record counts, SHA-256)"
        + " next to the output shards, once every shard is created. The manifest is the commit point.", ""})
public final class SortCommitCommand extends PhaseCommand {
  @Override
  List<PhaseResult> run(SortPhases phases) throws Exception {
    return List.of(phases.commit());
  }
}
