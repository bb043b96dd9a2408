package dev.quarry.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The workload the worker image's startup cache is made from (worker-image/Dockerfile): the commands worker pods run,
 * in one JVM on small local data, so that one cache holds the classes and profiles of every pod's command. A cache
 * trained on one command leaves the others to load and profile their classes from scratch in every short pod.
 * Usage: StartupTraining FOLDER (an empty folder; what the commands write stays in it).
 */
public final class StartupTraining {
  private StartupTraining() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("Usage: StartupTraining FOLDER");
      System.exit(2);
    }
    run(Path.of(args[0]));
  }

  /** Runs each training command in {@code folder}; throws, with the command's output, if one fails. */
  static void run(Path folder) throws IOException {
    Path data = Files.createDirectories(folder.resolve("data"));
    String input = data.resolve("train-{000000..000003}.tar").toString();
    List<String> sortSpec = List.of("--input", input, "--order", "shuffle", "--seed", "1", "--shard-size", "64Ki");
    List<String> phaseSpec = concat(sortSpec, List.of("--output", folder.resolve("phases/shuffled-{000000..}.tar")
        .toString(), "--scratch", folder.resolve("scratch").toUri().toString()));
    String remote = folder.resolve("remote").toString();
    String state = folder.resolve("state").toString();
    Files.createDirectories(folder.resolve("sync/folder"));
    Files.writeString(folder.resolve("sync/folder/file"), "quarry\n");
    List<List<String>> commands = List.of(
        List.of("gen", "--out", data.toString(), "--shards", "4", "--records", "40", "--image-size", "2Ki"),
        concat(List.of("sort", "run", "--output", folder.resolve("run/shuffled-{000000..}.tar").toString()), sortSpec),
        concat(List.of("sort", "extract", "--index", "0", "--count", "2"), phaseSpec),
        concat(List.of("sort", "extract", "--index", "1", "--count", "2", "--then-plan"), phaseSpec),
        concat(List.of("sort", "create", "--index", "0", "--count", "1", "--then-commit"), phaseSpec),
        List.of("sync", "push", folder.resolve("sync").toString(), "--remote", remote, "--state-dir", state),
        List.of("sync", "status", folder.resolve("sync").toString(), "--remote", remote, "--state-dir", state),
        List.of("sync", "pull", folder.resolve("pulled").toString(), "--remote", remote, "--state-dir",
            folder.resolve("pull-state").toString()));
    for (List<String> command : commands) {
      StringWriter output = new StringWriter();
      CommandLine commandLine = QuarryCommand.commandLine();
      commandLine.setOut(new PrintWriter(output, true));
      commandLine.setErr(new PrintWriter(output, true));
      int status = commandLine.execute(command.toArray(String[]::new));
      if (status != 0) {
        throw new IOException("Startup training: quarry " + String.join(" ", command) + " exited with " + status
            + ":\n" + output);
      }
    }
  }

  private static List<String> concat(List<String> first, List<String> second) {
    return Stream.concat(first.stream(), second.stream()).toList();
  }
}
