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
 * The sync commands run against a folder remote, and status also against an S3 remote on a loopback endpoint where
 * every object is missing ({@link MissingObjectsEndpoint}).
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
      execute(command);
    }
    // The same folder's status against an S3 remote, whose client is most of an S3 command's start.
    try (MissingObjectsEndpoint s3 = MissingObjectsEndpoint.start()) {
      String synced = folder.resolve("sync").toString();
      execute(List.of("remote", "add", "--local", "--folder", synced, "training", "s3://quarry-training/cas",
          "--endpoint", s3.url().toString()));
      withAnyKeys(() -> execute(List.of("sync", "status", synced, "--remote", "training", "--state-dir",
          folder.resolve("s3-state").toString())));
    }
  }

  private static void execute(List<String> command) throws IOException {
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

  private interface Training {
    void run() throws IOException;
  }

  /**
   * Runs {@code training} with keys in the JVM's properties ({@code aws.accessKeyId}), where the SDK's default chain
   * looks first: the training endpoint takes any signature, and where the jar is built there are no credentials.
   * Keys of the environment (AWS_ACCESS_KEY_ID) still win, as for every command.
   */
  private static void withAnyKeys(Training training) throws IOException {
    boolean set = System.getProperty("aws.accessKeyId") == null && System.getProperty("aws.secretAccessKey") == null;
    if (set) {
      System.setProperty("aws.accessKeyId", "quarry-training");
      System.setProperty("aws.secretAccessKey", "quarry-training");
    }
    try {
      training.run();
    } finally {
      if (set) {
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
      }
    }
  }

  private static List<String> concat(List<String> first, List<String> second) {
    return Stream.concat(first.stream(), second.stream()).toList();
  }
}
