package dev.quarry.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/** {@code --help} and {@code -h} print the usage and exit 0 on every command, whatever options it has of its own. */
class HelpOnEveryCommandTest {
  /** Every command's words after {@code quarry}, for example [sync, pull]; the root is the empty list. */
  static Stream<List<String>> commands() {
    List<List<String>> commands = new ArrayList<>();
    collect(QuarryCommand.commandLine(), List.of(), commands);
    return commands.stream();
  }

  private static void collect(CommandLine command, List<String> words, List<List<String>> commands) {
    commands.add(words);
    command.getSubcommands().forEach((name, sub) -> {
      if (sub.getCommandName().equals(name)) { // aliases name the same command again
        List<String> subWords = new ArrayList<>(words);
        subWords.add(name);
        collect(sub, subWords, commands);
      }
    });
  }

  @ParameterizedTest
  @MethodSource("commands")
  void helpPrintsTheUsageAndExitsZero(List<String> words) {
    for (String help : List.of("--help", "-h")) {
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      ByteArrayOutputStream processErr = new ByteArrayOutputStream();
      CommandLine commandLine = QuarryCommand.commandLine();
      commandLine.setOut(new PrintWriter(out, true));
      commandLine.setErr(new PrintWriter(err, true));
      List<String> args = new ArrayList<>(words);
      args.add(help);

      int exit = executeWatchingTheProcessErr(commandLine, args, processErr);

      assertThat(exit).as(String.join(" ", args) + ": " + err).isZero();
      assertThat(out.toString()).contains("Usage: " + String.join(" ", Stream.concat(Stream.of("quarry"),
          words.stream()).toList()));
      assertThat(err.toString()).isEmpty();
      assertThat(processErr.toString()).as("what picocli itself printed, e.g. a description it could not format")
          .isEmpty();
    }
  }

  /** Runs the command while catching the process's standard error, where picocli's own warnings go. */
  private static int executeWatchingTheProcessErr(CommandLine commandLine, List<String> args,
      ByteArrayOutputStream processErr) {
    PrintStream previous = System.err;
    System.setErr(new PrintStream(processErr, true, StandardCharsets.UTF_8));
    try {
      return commandLine.execute(args.toArray(String[]::new));
    } finally {
      System.setErr(previous);
    }
  }

  @ParameterizedTest
  @MethodSource("commands")
  void helpKeepsEveryUrlOnOneLine(List<String> words) {
    CommandLine command = QuarryCommand.commandLine();
    for (String word : words) {
      command = command.getSubcommands().get(word);
    }
    Pattern url = Pattern.compile("[a-z0-9]+://[^\\s,;)]+");
    List<String> urls = Stream.concat(Stream.of(command.getCommandSpec().usageMessage().description()),
            command.getCommandSpec().args().stream().filter(arg -> !arg.hidden())
                .flatMap(arg -> Stream.of(arg.description())))
        .flatMap(text -> url.matcher(text).results().map(MatchResult::group)).toList();
    StringWriter out = new StringWriter();
    command.setOut(new PrintWriter(out, true));

    command.usage(new PrintWriter(out, true));

    List<String> lines = out.toString().lines().toList();
    for (String whole : urls) {
      assertThat(lines).as("a line holding " + whole).anyMatch(line -> line.contains(whole));
    }
  }

  @Test
  void theUrlsOfSyncPushAreAmongThoseChecked() {
    CommandLine push = QuarryCommand.commandLine().getSubcommands().get("sync").getSubcommands().get("push");
    StringWriter out = new StringWriter();
    push.usage(new PrintWriter(out, true));

    assertThat(out.toString()).contains("s3://bucket/prefix,");
  }

  @Test
  void theCommandsAreAllThere() {
    assertThat(commands()).contains(List.of(), List.of("sync", "pull"), List.of("sort", "extract"),
        List.of("cache", "build"), List.of("help"));
  }

  @Test
  void pullsVersionOptionStillSelectsTheVersionAndTheRootStillPrintsItsOwn() {
    StringWriter out = new StringWriter();
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    assertThat(commandLine.execute("--version")).isZero();
    assertThat(out.toString()).startsWith("quarry ").contains("(commit ");

    CommandLine pull = QuarryCommand.commandLine();
    pull.parseArgs("sync", "pull", "/tmp/folder", "--remote", "/tmp/remote", "--version", "v7");
    assertThat(pull.getSubcommands().get("sync").getSubcommands().get("pull").getParseResult()
        .matchedOptionValue("--version", "latest")).isEqualTo("v7");
  }
}
