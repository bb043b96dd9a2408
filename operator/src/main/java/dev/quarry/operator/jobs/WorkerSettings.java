package dev.quarry.operator.jobs;

import dev.quarry.api.common.EndpointAllowlist;
import java.util.Objects;

/**
 * How worker pods run: the worker image, its pull policy, the ServiceAccount (null: the namespace's default; either
 * way no token is mounted, so a worker cannot touch the API), how long finished Jobs are kept, the store endpoints a
 * resource may send its workers (and their credentials) to, whether a worker without its resource's Secret may use
 * the credentials of its pod or node (else its requests go unsigned), and the admin's defaults for every worker pod.
 */
public record WorkerSettings(String image, String pullPolicy, String serviceAccount, int finishedJobTtlSeconds,
    EndpointAllowlist endpoints, boolean ambientCredentials, WorkerPodDefaults pod) {
  public WorkerSettings {
    Objects.requireNonNull(image, "image");
    Objects.requireNonNull(endpoints, "endpoints");
    Objects.requireNonNull(pod, "pod");
    if (finishedJobTtlSeconds < 0) {
      throw new IllegalArgumentException("Invalid finished Job TTL: " + finishedJobTtlSeconds
          + " (must be 0 or more seconds)");
    }
  }
}
