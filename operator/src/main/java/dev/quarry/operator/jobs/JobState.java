package dev.quarry.operator.jobs;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.batch.v1.JobStatus;
import java.util.List;

/**
 * What a worker Job's status says: still running, succeeded or failed, and how many of its completions are done.
 * Read from the conditions the Job controller sets (Complete, Failed), never guessed from pod counts.
 */
public record JobState(Outcome outcome, int completions, int succeeded, String reason, String message) {
  /** Where a Job is. */
  public enum Outcome {
    RUNNING,
    SUCCEEDED,
    FAILED
  }

  public static JobState of(Job job) {
    int completions = job.getSpec() == null || job.getSpec().getCompletions() == null ? 1
        : job.getSpec().getCompletions();
    JobStatus status = job.getStatus();
    if (status == null) {
      return new JobState(Outcome.RUNNING, completions, 0, null, null);
    }
    int succeeded = status.getSucceeded() == null ? 0 : status.getSucceeded();
    List<JobCondition> conditions = status.getConditions() == null ? List.of() : status.getConditions();
    for (JobCondition condition : conditions) {
      if ("True".equals(condition.getStatus()) && "Failed".equals(condition.getType())) {
        return new JobState(Outcome.FAILED, completions, succeeded, condition.getReason(), condition.getMessage());
      }
      if ("True".equals(condition.getStatus()) && "Complete".equals(condition.getType())) {
        return new JobState(Outcome.SUCCEEDED, completions, completions, condition.getReason(), null);
      }
    }
    return new JobState(Outcome.RUNNING, completions, succeeded, null, null);
  }

  public boolean finished() {
    return outcome != Outcome.RUNNING;
  }

  /** The share of completions done, from 0 to 1. */
  public double fractionDone() {
    return completions == 0 ? 1 : Math.min(1.0, (double) succeeded / completions);
  }
}
