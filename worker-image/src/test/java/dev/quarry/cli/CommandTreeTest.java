package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The command tree built for a command line: only the commands on the path its words name, each as in the whole. */
class CommandTreeTest {
  @Test
  void theWordsOfACommandBuildOnlyTheCommandsOnItsPath() {
    CommandLine tree = QuarryCommand.commandLine("sync", "status", "data", "--remote", "s3://bucket/prefix");

    assertThat(tree.getSubcommands()).containsOnlyKeys("sync");
    assertThat(tree.getSubcommands().get("sync").getSubcommands()).containsOnlyKeys("status");
    assertThat(QuarryCommand.commandLine("gen", "--out", "x").getSubcommands()).containsOnlyKeys("gen");
  }

  @Test
  void everyCommandOnItsOwnPathIsTheCommandOfTheWholeTree() {
    List<List<String>> paths = new ArrayList<>();
    collect(QuarryCommand.commandLine(), List.of(), paths);
    assertThat(paths).hasSizeGreaterThan(25);
    for (List<String> path : paths) {
      CommandLine whole = at(QuarryCommand.commandLine(), path);
      CommandLine alone = at(QuarryCommand.commandLine(path.toArray(String[]::new)), path);
      assertThat(alone.getUsageMessage(CommandLine.Help.Ansi.OFF)).as(String.join(" ", path))
          .isEqualTo(whole.getUsageMessage(CommandLine.Help.Ansi.OFF));
      assertThat(alone.getExecutionExceptionHandler()).isInstanceOf(UserErrorHandler.class);
      assertThat(alone.isCaseInsensitiveEnumValuesAllowed()).isTrue();
    }
  }

  @Test
  void wordsThatNameNoCommandGetEveryCommandAtThatLevel() {
    Map<String, CommandLine> all = QuarryCommand.commandLine().getSubcommands();
    assertThat(all).containsKeys("sort", "sync", "remote", "cache", "gen", "help");
    for (String[] args : List.of(new String[] {"--help"}, new String[] {"help", "sync"}, new String[] {"synk"},
        new String[] {})) {
      assertThat(QuarryCommand.commandLine(args).getSubcommands().keySet()).as(String.join(" ", args))
          .containsExactlyElementsOf(all.keySet());
    }
    Map<String, CommandLine> sync = all.get("sync").getSubcommands();
    for (String[] args : List.of(new String[] {"sync"}, new String[] {"sync", "statsu"},
        new String[] {"sync", "--help"})) {
      CommandLine tree = QuarryCommand.commandLine(args);
      assertThat(tree.getSubcommands()).as(String.join(" ", args)).containsOnlyKeys("sync");
      assertThat(tree.getSubcommands().get("sync").getSubcommands().keySet()).containsExactlyElementsOf(
          sync.keySet());
    }
  }

  private static void collect(CommandLine command, List<String> words, List<List<String>> paths) {
    paths.add(words);
    command.getSubcommands().forEach((name, sub) -> {
      if (sub.getCommandName().equals(name)) { // aliases name the same command again
        List<String> subWords = new ArrayList<>(words);
        subWords.add(name);
        collect(sub, subWords, paths);
      }
    });
  }

  private static CommandLine at(CommandLine root, List<String> path) {
    CommandLine command = root;
    for (String word : path) {
      command = command.getSubcommands().get(word);
    }
    return command;
  }
}
