package dev.quarry.cli.remote;

import java.util.List;
import picocli.CommandLine.Command;

/** {@code quarry remote}: remotes by name, so that sync commands need no URL. */
@Command(
    name = "remote",
    mixinStandardHelpOptions = true,
    description = {
      "Names remotes, so that every sync command's --remote takes a name instead of a URL, and sets the default"
          + " remote, so that --remote may be left out.",
      "Three config files hold them, a later one winning: the user's ($XDG_CONFIG_HOME/quarry/config, else"
          + " ~/.config/quarry/config; --global), the folder's (<folder>/.quarry/config, to commit with it; the"
          + " default) and the folder's on this machine only (<folder>/.quarry/config.local; --local). Sync"
          + " commands read those of their FOLDER, or of the working folder when they have none (log, gc).",
      "A remote's S3 connection is the environment's (see quarry sync --help) changed by what the remote sets: its"
          + " AWS profile (endpoint_url, region and credentials from ~/.aws/config and ~/.aws/credentials), then its"
          + " endpoint and region. Credentials are never kept in a Quarry config: put them in a profile.",
      ""
    })
public final class RemoteCommand {
  /** Its subcommands, in the order help lists them (QuarryCommand builds the tree from them). */
  public static final List<Class<?>> SUBCOMMANDS = List.of(RemoteAddCommand.class, RemoteListCommand.class,
      RemoteRemoveCommand.class, RemoteDefaultCommand.class);
}
