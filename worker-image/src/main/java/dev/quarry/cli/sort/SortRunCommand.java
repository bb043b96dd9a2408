package dev.quarry.cli.sort;

import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.sort.LocalSort;
import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code quarry sort run}: every phase in this process, reading each input byte once. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Runs extract, plan, create and commit in this process, holding record bytes in memory outside"
        + " the heap within the memory budget (spilling to --work-dir beyond it), but for plain tars in local files,"
        + " which it reads again where they are: the process stays within the budget and the JVM's own 96 MiB."
        + " Output is byte-identical to a ShardSortJob with the same spec.", ""},
    footer = {"", "Example:",
        "  quarry sort run --input '/data/train-{000000..000127}.tar' --output '/data/shuffled-{000000..}.tar' \\",
        "      --order shuffle --seed 7 --shard-size 256Mi"})
public final class SortRunCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin SortSpecOptions job;
  @Mixin SortOutput output;

  @Option(names = "--work-dir", paramLabel = "DIR", description = "Folder in which to make a folder for spilled data"
      + " (default: the system's temporary directory); that folder is removed afterwards, also on Ctrl-C.")
  Path workDir;

  @Override
  public Integer call() throws Exception {
    var spec = job.spec();
    Path work = workDir != null ? workDir : Path.of(System.getProperty("java.io.tmpdir"));
    PrintStream log = ProgressLog.to(command.commandLine().getErr());
    try (ObjectStores stores = new ObjectStores(job.s3Settings(S3Settings.fromEnvironment()))) {
      List<PhaseResult> results = LocalSort.run(spec, stores, work, log);
      output.print(command.commandLine().getOut(), results);
    }
    return 0;
  }
}
