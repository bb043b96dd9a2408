package dev.quarry.core.sync;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.quarry.core.store.RequestTotals;
import dev.quarry.core.sync.remote.MissingObjects;
import dev.quarry.core.sync.remote.Strategy;
import java.util.List;

/**
 * The JSON result of a sync command, which the operator copies into the DatasetSync status.
 *
 * @param version root digest of the version scanned (status, push), pulled, or null (gc)
 * @param files files and links in that version
 * @param bytes bytes of regular files in that version
 * @param hashedFiles files read and hashed because the state database did not know them
 * @param missingLocal files of the remote version whose content is not at their path locally (status)
 * @param missingRemote objects of the local version the remote lacks (status: now; push: before uploading)
 * @param transferred objects uploaded (push), downloaded (pull) or deleted (gc)
 * @param unreachable objects gc found unreachable and old enough to delete (deleted unless dry run)
 * @param retained unreachable objects gc kept because they are younger than the grace period
 * @param failures objects that failed after retries; the command fails when there are any
 * @param changes the paths that differ (status), or null
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SyncResult(String operation, String remote, String ref, String version, long files, long bytes,
    long hashedFiles, Amount missingLocal, Amount missingRemote, Amount transferred, Amount unreachable,
    Amount retained, RequestTotals requests, Strategy strategy, List<MissingObjects.Lookup> lookups, long failures,
    List<String> failureSamples, List<String> warnings, String startTime, String endTime, double elapsedSeconds,
    StatusChanges changes) {

  /** A result that names no paths: every operation's but status's. */
  public SyncResult(String operation, String remote, String ref, String version, long files, long bytes,
      long hashedFiles, Amount missingLocal, Amount missingRemote, Amount transferred, Amount unreachable,
      Amount retained, RequestTotals requests, Strategy strategy, List<MissingObjects.Lookup> lookups, long failures,
      List<String> failureSamples, List<String> warnings, String startTime, String endTime, double elapsedSeconds) {
    this(operation, remote, ref, version, files, bytes, hashedFiles, missingLocal, missingRemote, transferred,
        unreachable, retained, requests, strategy, lookups, failures, failureSamples, warnings, startTime, endTime,
        elapsedSeconds, null);
  }

  /** Whether status found a difference: a path that differs, or an object the remote lacks. */
  public boolean differs() {
    return (changes != null && changes.any()) || (missingRemote != null && missingRemote.objects() > 0)
        || (missingLocal != null && missingLocal.objects() > 0);
  }

  /** This result with a short sample of each list of {@link #changes} ({@link PathList#sample}). */
  public SyncResult withPathsSampled(int limit, int maxBytes) {
    return changes == null ? this : new SyncResult(operation, remote, ref, version, files, bytes, hashedFiles,
        missingLocal, missingRemote, transferred, unreachable, retained, requests, strategy, lookups, failures,
        failureSamples, warnings, startTime, endTime, elapsedSeconds, changes.sample(limit, maxBytes));
  }
}
