package dev.quarry.operator.jobs;

import java.util.Objects;

/**
 * How worker pods run: the worker image, its pull policy, the ServiceAccount (null: the namespace's default; either
 * way no token is mounted, so a worker cannot touch the API), and how long finished Jobs are kept.
 */
public record WorkerSettings(String image, String pullPolicy, String serviceAccount, int finishedJobTtlSeconds) {
  public WorkerSettings {
    Objects.requireNonNull(image, "image");
    if (finishedJobTtlSeconds < 0) {
      throw new IllegalArgumentException("Invalid finished Job TTL: " + finishedJobTtlSeconds
          + " (must be 0 or more seconds)");
    }
  }
}
