package dev.quarry.cli.sort;

import dev.quarry.cli.output.ProgressLog;
import dev.quarry.core.sort.PhaseResult;
import dev.quarry.core.sort.SortPhases;
import dev.quarry.core.sort.extract.ScratchPacks;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What every phase command shares: the job, the scratch prefix, the object stores and the report. */
abstract class PhaseCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin SortSpecOptions job;
  @Mixin SortOutput output;

  /** Runs this command's phase (and the one after it, when this worker finishes last and was asked to). */
  abstract List<PhaseResult> run(SortPhases phases) throws Exception;

  @Override
  public final Integer call() throws Exception {
    SortSpec spec = job.spec();
    if (spec.scratch() == null) {
      throw new IllegalArgumentException("Missing --scratch (or scratch in the --spec file): the phases keep their"
          + " intermediate data there, for example s3://bucket/.quarry-scratch/my-job/");
    }
    PrintStream log = ProgressLog.to(command.commandLine().getErr());
    try (ObjectStores stores = new ObjectStores(job.s3Settings(S3Settings.fromEnvironment()))) {
      Location scratch = stores.locate(spec.scratch().endsWith("/") ? spec.scratch() : spec.scratch() + "/");
      SortPhases phases = new SortPhases(spec, stores, scratch,
          new ScratchPacks(scratch.store(), new Scratch(scratch.key())), false, log);
      output.print(command.commandLine().getOut(), run(phases));
    }
    return 0;
  }
}
