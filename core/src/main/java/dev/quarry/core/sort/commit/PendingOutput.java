package dev.quarry.core.sort.commit;

import java.util.List;

/**
 * An unfinished run's record next to its shards, written before it deletes or writes any of them and removed once
 * its manifest is committed: the job (the digest its scratch marker holds) and every shard name it may have written
 * or replaced, relative to the folder. A rerun of the same job may replace them; another job needs overwrite.
 */
public record PendingOutput(String format, String job, List<String> shards) {
  public static final String FORMAT = "quarry-sort-pending/1";
}
