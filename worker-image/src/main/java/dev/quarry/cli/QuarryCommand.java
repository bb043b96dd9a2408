package dev.quarry.cli;

import dev.quarry.cli.cache.CacheCommand;
import dev.quarry.cli.gen.GenCommand;
import dev.quarry.cli.output.WholeUrlHelp;
import dev.quarry.cli.remote.RemoteCommand;
import dev.quarry.cli.sort.SortCommand;
import dev.quarry.cli.sync.SyncCommand;
import dev.quarry.core.memory.JdkIoBuffers;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
    })
public final class QuarryCommand {
  /** Its subcommands, in the order help lists them. */
  private static final List<Class<?>> SUBCOMMANDS = List.of(SortCommand.class, SyncCommand.class,
      RemoteCommand.class, CacheCommand.class, GenCommand.class, CommandLine.HelpCommand.class);
  /** The subcommands of each command that has some. */
  private static final Map<Class<?>, List<Class<?>>> GROUPS = Map.of(SortCommand.class, SortCommand.SUBCOMMANDS,
      SyncCommand.class, SyncCommand.SUBCOMMANDS, RemoteCommand.class, RemoteCommand.SUBCOMMANDS,
      CacheCommand.class, CacheCommand.SUBCOMMANDS);

  public static void main(String[] args) {
    JdkIoBuffers.bound();
    System.exit(commandLine(args).execute(args));
  }

  /** The whole command tree with Quarry's error handling, for tests and the startup training. */
  public static CommandLine commandLine() {
    return commandLine(new String[0]);
  }

  /**
   * The command tree to run {@code args} with: where their first words name a command (sync status), only the
   * commands on its path. Picocli reads every command's annotations by reflection as it builds the tree, and its own
   * classes are too old for the startup cache to hold: the whole tree was about a fifth of a status's start. Words
   * that name no command (help, an option, a typing error) get all the commands at that level and below, so that
   * help and errors list them all.
   */
  static CommandLine commandLine(String... args) {
    CommandLine commandLine = new CommandLine(new QuarryCommand());
    addSubcommands(commandLine, SUBCOMMANDS, Arrays.asList(args));
    // After the subcommands are added: each setting reaches the commands in the tree when it is set.
    commandLine.setExecutionExceptionHandler(new UserErrorHandler());
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    commandLine.setHelpFactory(WholeUrlHelp::new);
    return commandLine;
  }

  /** Adds to {@code parent} the one of {@code subcommands} that {@code words} start with, or all of them. */
  private static void addSubcommands(CommandLine parent, List<Class<?>> subcommands, List<String> words) {
    Class<?> named = words.isEmpty() ? null : subcommands.stream()
        .filter(command -> command != CommandLine.HelpCommand.class && isNamed(command, words.get(0)))
        .findFirst().orElse(null);
    for (Class<?> command : subcommands) {
      if (named == null || command == named) {
        CommandLine sub = new CommandLine(command);
        parent.addSubcommand(sub);
        addSubcommands(sub, GROUPS.getOrDefault(command, List.of()),
            command == named ? words.subList(1, words.size()) : List.of());
      }
    }
  }

  private static boolean isNamed(Class<?> command, String word) {
    Command annotation = command.getAnnotation(Command.class);
    return annotation.name().equals(word) || Arrays.asList(annotation.aliases()).contains(word);
  }
}
