package dev.quarry.cli;

import dev.quarry.cli.cache.CacheCommand;
import dev.quarry.cli.gen.GenCommand;
import dev.quarry.cli.output.WholeUrlHelp;
import dev.quarry.cli.remote.RemoteCommand;
import dev.quarry.cli.sort.SortCommand;
import dev.quarry.cli.sync.SyncCommand;
import dev.quarry.core.memory.JdkIoBuffers;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code quarry} command: what worker pods run, and what users run on their own machine. */
@Command(
    name = "quarry",
    mixinStandardHelpOptions = true,
    versionProvider = QuarryVersion.class,
    description = {
      "Moves and reshapes AI training datasets where they live: in S3-compatible object storage or a local folder.",
      ""
    },
    subcommands = {SortCommand.class, SyncCommand.class, RemoteCommand.class, CacheCommand.class, GenCommand.class,
        CommandLine.HelpCommand.class})
public final class QuarryCommand {
  public static void main(String[] args) {
    JdkIoBuffers.bound();
    System.exit(commandLine().execute(args));
  }

  /** The command tree with Quarry's error handling, for {@link #main} and for tests. */
  public static CommandLine commandLine() {
    CommandLine commandLine = new CommandLine(new QuarryCommand());
    commandLine.setExecutionExceptionHandler(new UserErrorHandler());
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    commandLine.setHelpFactory(WholeUrlHelp::new);
    return commandLine;
  }
}
