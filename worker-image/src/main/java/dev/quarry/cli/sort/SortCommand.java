package dev.quarry.cli.sort;

import java.util.List;
import picocli.CommandLine.Command;

/** {@code quarry sort}: the shard sort, all at once or phase by phase. */
@Command(
    name = "sort",
    mixinStandardHelpOptions = true,
    description = {
      "Sorts or shuffles a dataset of archive shards across all its shards and reshards it.",
      "'run' does everything in this process; the phase commands are what a ShardSortJob's worker pods run, with"
          + " intermediate data under --scratch. 'clean' deletes the scratch data when a job ends.",
      "The S3 connection comes from the --spec file's store, then the environment: QUARRY_S3_ENDPOINT,"
          + " AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, AWS_REGION, AWS_DEFAULT_REGION, QUARRY_S3_PATH_STYLE,"
          + " AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, and AWS_PROFILE in ~/.aws/config and"
          + " ~/.aws/credentials (AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE), first source first."
          + " QUARRY_S3_REQUEST_DEADLINE (default 30s): a request the endpoint answers nothing for that long,"
          + " retries included, fails. QUARRY_S3_AMBIENT_CREDENTIALS=false (what the operator sets on worker pods"
          + " unless the cluster admin allows ambient credentials): without the two keys, requests go unsigned"
          + " rather than to the profile, web identity, container or instance role.",
      ""
    })
public final class SortCommand {
  /** Its subcommands, in the order help lists them (QuarryCommand builds the tree from them). */
  public static final List<Class<?>> SUBCOMMANDS = List.of(SortRunCommand.class, SortExtractCommand.class,
      SortPartitionCommand.class, SortPlanCommand.class, SortCreateCommand.class, SortCommitCommand.class,
      SortCleanCommand.class);
}
