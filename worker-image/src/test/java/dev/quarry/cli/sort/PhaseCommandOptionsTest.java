package dev.quarry.cli.sort;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.cli.QuarryCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A phase command lists the options its phase reads, not all of sort run's, and still takes the job's options. */
class PhaseCommandOptionsTest {
  private static final List<String> JOB_DEFINITION = List.of("--input", "--input-format", "--output",
      "--output-format", "--shard-size", "--order", "--seed", "--keymap-file", "--duplicated-records",
      "--missing-shards");

  private static List<String> listedOptions(String... command) {
    StringWriter out = new StringWriter();
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    List<String> args = new java.util.ArrayList<>(List.of(command));
    args.add("--help");
    assertThat(commandLine.execute(args.toArray(String[]::new))).isZero();
    Matcher option = Pattern.compile("(?m)^ {2,6}(?:-\\w, )?(--[a-z-]+)").matcher(out.toString());
    return option.results().map(match -> match.group(1)).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"extract", "partition", "plan", "create", "commit"})
  void aPhaseListsNoneOfTheOptionsThatOnlyDefineTheJob(String phase) {
    List<String> listed = listedOptions("sort", phase);

    assertThat(listed).contains("--spec", "--scratch", "--requests-in-flight", "--json", "--help")
        .doesNotContainAnyElementsOf(JOB_DEFINITION).hasSizeLessThanOrEqualTo(14);
  }

  @Test
  void sortRunListsThemAllAndEachPhaseItsOwn() {
    assertThat(listedOptions("sort", "run")).containsAll(JOB_DEFINITION).hasSizeGreaterThan(25);
    assertThat(listedOptions("sort", "extract")).contains("--memory-budget", "--then-plan", "--dry-run");
    assertThat(listedOptions("sort", "create")).contains("--then-commit").doesNotContain("--memory-budget");
    assertThat(listedOptions("sort", "plan")).contains("--extract-count");
    assertThat(listedOptions("sort", "extract")).contains("--partitions");
    assertThat(listedOptions("sort", "partition")).contains("--index", "--count", "--extract-count", "--then-plan",
        "--memory-budget");
  }

  /** Scratch names a partition in five digits, so extract refuses more partitions before reading anything. */
  @Test
  void extractRefusesMorePartitionsThanScratchNamesHold(@TempDir Path temp) {
    StringWriter err = new StringWriter();
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.setErr(new PrintWriter(err, true));
    int exit = commandLine.execute("sort", "extract", "--input", temp + "/in/{0..1}.tar", "--output",
        temp + "/out/{0..}.tar", "--order", "shuffle", "--seed", "1", "--shard-size", "64Ki", "--scratch",
        temp + "/scratch", "--index", "0", "--count", "1", "--partitions", "100000");

    assertThat(exit).isNotZero();
    assertThat(err.toString().strip()).isEqualTo("quarry: Invalid --partitions: 100000 (must be from 1 to 99999)");
  }

  @Test
  void aPhaseStillTakesTheJobsOptionsAndItsHelpSaysHow() {
    CommandLine commandLine = QuarryCommand.commandLine();
    commandLine.parseArgs("sort", "create", "--input", "/in/{0..1}.tar", "--output", "/out/{0..}.tar", "--order",
        "shuffle", "--seed", "1", "--shard-size", "64Ki", "--scratch", "/scratch", "--index", "0", "--count", "1");

    StringWriter out = new StringWriter();
    CommandLine help = QuarryCommand.commandLine();
    help.setOut(new PrintWriter(out, true));
    help.execute("sort", "commit", "--help");
    assertThat(out.toString().replaceAll("\\s+", " ")).contains(PhaseSpecOptions.JOB_OPTIONS);
  }
}
