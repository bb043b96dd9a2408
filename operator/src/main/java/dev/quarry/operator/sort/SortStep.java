package dev.quarry.operator.sort;

import dev.quarry.api.shardsort.PhaseWorkers;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import dev.quarry.api.shardsort.ShardSortPhase;
import java.util.List;

/**
 * The steps of a shard sort, in order, each one indexed Job running {@code quarry sort <step>}, except that plan and
 * commit run in the pod of the last extract and create worker to finish (a pod's start costs seconds; the plan of a
 * large job, less). The weights say how much of the whole job each step is, for the PROGRESS column (extract and
 * create move every byte; plan and commit only metadata).
 */
enum SortStep {
  EXTRACT("extract", ShardSortPhase.Extracting, 40),
  PLAN("plan", ShardSortPhase.Planning, 10),
  CREATE("create", ShardSortPhase.Creating, 45),
  COMMIT("commit", ShardSortPhase.Creating, 5);

  private static final int DEFAULT_PARALLELISM = 4;

  private final String command;
  private final ShardSortPhase phase;
  private final int weight;

  SortStep(String command, ShardSortPhase phase, int weight) {
    this.command = command;
    this.phase = phase;
    this.weight = weight;
  }

  /** The {@code quarry sort} subcommand, also the step's name in labels, Job names and status. */
  String command() {
    return command;
  }

  ShardSortPhase phase() {
    return phase;
  }

  int weight() {
    return weight;
  }

  /** The steps {@code spec} runs: a dry run stops after the plan. */
  static List<SortStep> of(ShardSortJobSpec spec) {
    return Boolean.TRUE.equals(spec.dryRun()) ? List.of(EXTRACT, PLAN) : List.of(values());
  }

  /**
   * The step whose last worker to finish also runs this one, in the same pod (its {@link #thenFlag()}): plan after
   * extract, commit after create. Such a step gets a Job of its own only if no worker reported running it.
   */
  SortStep runByLastOf() {
    return switch (this) {
      case PLAN -> EXTRACT;
      case COMMIT -> CREATE;
      case EXTRACT, CREATE -> null;
    };
  }

  /** The option that has this step's last worker to finish run the next step too, or null. */
  String thenFlag() {
    return switch (this) {
      case EXTRACT -> "--then-plan";
      case CREATE -> "--then-commit";
      case PLAN, COMMIT -> null;
    };
  }

  /** How many worker indexes the step runs. */
  int workers(ShardSortJobSpec spec) {
    return switch (this) {
      case EXTRACT -> parallelism(spec.workers() == null ? null : spec.workers().extract());
      case CREATE -> parallelism(spec.workers() == null ? null : spec.workers().create());
      case PLAN, COMMIT -> 1;
    };
  }

  private static int parallelism(PhaseWorkers workers) {
    return workers == null || workers.parallelism() == null ? DEFAULT_PARALLELISM : workers.parallelism();
  }
}
