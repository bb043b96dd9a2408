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
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SyncResult(String operation, String remote, String ref, String version, long files, long bytes,
    long hashedFiles, Amount missingLocal, Amount missingRemote, Amount transferred, Amount unreachable,
    Amount retained, RequestTotals requests, Strategy strategy, List<MissingObjects.Lookup> lookups, long failures,
    List<String> failureSamples, List<String> warnings, String startTime, String endTime, double elapsedSeconds) {}
