package dev.quarry.cli.sync;

import java.util.List;
import picocli.CommandLine.Command;

/** {@code quarry sync}: the DatasetSync engine. */
@Command(
    name = "sync",
    mixinStandardHelpOptions = true,
    description = {
      "Versions a folder into a content-addressed store (a Merkle tree of SHA-256 digests) under an S3 or local"
          + " prefix: status, push, pull, log, diff, ls, get, import-dvc and gc. Each command costs what changed, not"
          + " what exists. status and pull also read a DVC 3 remote straight (--dvc FILE.dvc --dvc-remote URL).",
      "State (the hash cache and the index of trees known complete on each remote) is kept in <folder>/.quarry"
          + " unless --state-dir says otherwise.",
      "--remote takes a URL or the name of a remote (see quarry remote --help); with a default remote it may be left"
          + " out. A .quarryignore at the folder's top, in .gitignore's syntax, keeps paths out of status and push and"
          + " from pull --delete-extra.",
      "The S3 connection comes from the environment: QUARRY_S3_ENDPOINT, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL,"
          + " AWS_REGION, AWS_DEFAULT_REGION, QUARRY_S3_PATH_STYLE, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,"
          + " AWS_SESSION_TOKEN, and AWS_PROFILE in ~/.aws/config and ~/.aws/credentials (AWS_CONFIG_FILE,"
          + " AWS_SHARED_CREDENTIALS_FILE), first source first."
          + " QUARRY_S3_REQUEST_DEADLINE (default 30s): a request the endpoint answers nothing for that long,"
          + " retries included, fails. QUARRY_S3_AMBIENT_CREDENTIALS=false (what the operator sets on worker pods"
          + " unless the cluster admin allows ambient credentials): without the two keys, requests go unsigned"
          + " rather than to the profile, web identity, container or instance role.",
      ""
    })
public final class SyncCommand {
  /** Its subcommands, in the order help lists them (QuarryCommand builds the tree from them). */
  public static final List<Class<?>> SUBCOMMANDS = List.of(SyncStatusCommand.class, SyncPushCommand.class,
      SyncPullCommand.class, SyncLogCommand.class, SyncDiffCommand.class, SyncLsCommand.class, SyncGetCommand.class,
      SyncImportDvcCommand.class, SyncGcCommand.class);
}
