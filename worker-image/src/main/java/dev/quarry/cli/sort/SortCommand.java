package dev.quarry.cli.sort;

import picocli.CommandLine.Command;

/** {@code quarry sort}: the shard sort, all at once or phase by phase. */
@Command(
    name = "sort",
    mixinStandardHelpOptions = true,
    description = {
      "Sorts or shuffles a dataset of archive shards across all its shards and reshards it.",
      "'run' does everything in this process; the phase commands are what a ShardSortJob's worker pods run, with"
          + " intermediate data under --scratch. The S3 connection comes from the environment: QUARRY_S3_ENDPOINT,"
          + " AWS_REGION, QUARRY_S3_PATH_STYLE, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, and"
          + " QUARRY_S3_REQUEST_DEADLINE (default 30s: a request the endpoint answers nothing for that long, retries"
          + " included, fails). 'clean' deletes the scratch data when a job ends.",
      ""
    },
    subcommands = {SortRunCommand.class, SortExtractCommand.class, SortPlanCommand.class, SortCreateCommand.class,
        SortCommitCommand.class, SortCleanCommand.class})
public final class SortCommand {}
