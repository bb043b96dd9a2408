package dev.quarry.cli.sort;

import java.util.List;
import java.util.Set;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The job options a phase command lists: --spec, the scratch and the options its phase reads for its own work (with
 * the phase it may run after it: {@code extract --then-plan}, {@code partition --then-plan},
 * {@code create --then-commit}), not every option of
 * {@code sort run}. The options that define the job (input, output, order, policies) are still taken, unlisted:
 * every phase is given the same job, whose digest marks the scratch, and the help says so once.
 */
final class PhaseSpecOptions implements IModelTransformer {
  private static final Set<String> EVERY_PHASE = Set.of("--spec", "--scratch", "--requests-in-flight", "--overwrite");
  /**
   * Extract, partition and plan sort in memory and spill past the budget; plan stops at the plan in a dry run.
   */
  private static final Set<String> SORTING_PHASE = Set.of("--spec", "--scratch", "--requests-in-flight",
      "--overwrite", "--memory-budget", "--dry-run");
  static final String JOB_OPTIONS = "The job: --spec FILE, as the operator gives it, or the options that define it"
      + " in quarry sort run (--input, --output, --order and the rest; see quarry sort run --help), the same for"
      + " every phase: the scratch is marked for one job.";

  /** The job options the phase command named {@code phase} lists. */
  static Set<String> listed(String phase) {
    return switch (phase) {
      case "extract", "partition", "plan" -> SORTING_PHASE;
      case "create", "commit" -> EVERY_PHASE;
      default -> throw new IllegalArgumentException("Invalid phase: " + phase
          + " (must be extract, partition, plan, create or commit)");
    };
  }

  @Override
  public CommandSpec transform(CommandSpec command) {
    Set<String> listed = listed(command.name());
    for (OptionSpec option : List.copyOf(command.mixins().get("job").options())) {
      if (!listed.contains(option.longestName())) {
        command.remove(option);
        command.addOption(option.toBuilder().hidden(true).build());
      }
    }
    command.usageMessage().footer("", JOB_OPTIONS);
    return command;
  }
}
