package dev.quarry.operator.sort;

import dev.quarry.api.shardsort.PhaseWorkers;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import dev.quarry.api.shardsort.ShardSortPhase;
import java.util.List;

/**
 * The steps of a shard sort, in order, each one indexed Job running {@code quarry sort <step>}, except that plan and
 * commit run in the pod of the last worker of the step before to finish (a pod's start costs seconds; the plan,
 * less). With more than one create worker, the records are split into as many partitions, each ordered by an index
 * of the partition step, whose last worker plans; with one, the plan orders the one partition after extract. The
 * weights say how much of the whole job each step is, for the PROGRESS column (extract and create move every byte;
 * partition, plan and commit only metadata).
 */
enum SortStep {
  EXTRACT("extract", ShardSortPhase.Extracting, 40),
  PARTITION("partition", ShardSortPhase.Planning, 8),
  PLAN("plan", ShardSortPhase.Planning, 2),
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

  /**
   * The steps {@code spec} runs: the partition step only with more than one partition; a dry run stops after the
   * plan.
   */
  static List<SortStep> of(ShardSortJobSpec spec) {
    List<SortStep> steps = new java.util.ArrayList<>(List.of(values()));
    if (partitions(spec) == 1) {
      steps.remove(PARTITION);
    }
    return Boolean.TRUE.equals(spec.dryRun()) ? steps.subList(0, steps.indexOf(PLAN) + 1) : steps;
  }

  /** How many partitions the records are split into: one per create worker. */
  static int partitions(ShardSortJobSpec spec) {
    return CREATE.workers(spec);
  }

  /**
   * Whether the last worker of the step before this one (of {@link #of}) runs it too, in the same pod (the step
   * before's {@link #thenFlag}): plan, commit. Such a step gets a Job of its own only if no worker reported running
   * it.
   */
  boolean runByLastOfStepBefore() {
    return this == PLAN || this == COMMIT;
  }

  /** The option that has this step's last worker to finish run the next step too, or null. */
  String thenFlag(ShardSortJobSpec spec) {
    return switch (this) {
      case EXTRACT -> partitions(spec) == 1 ? "--then-plan" : null;
      case PARTITION -> "--then-plan";
      case CREATE -> "--then-commit";
      case PLAN, COMMIT -> null;
    };
  }

  /** How many worker indexes the step runs. */
  int workers(ShardSortJobSpec spec) {
    return switch (this) {
      case EXTRACT -> parallelism(spec.workers() == null ? null : spec.workers().extract());
      case PARTITION, CREATE -> parallelism(spec.workers() == null ? null : spec.workers().create());
      case PLAN, COMMIT -> 1;
    };
  }

  private static int parallelism(PhaseWorkers workers) {
    return workers == null || workers.parallelism() == null ? DEFAULT_PARALLELISM : workers.parallelism();
  }
}
