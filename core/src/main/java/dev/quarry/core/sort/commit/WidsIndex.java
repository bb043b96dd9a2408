package dev.quarry.core.sort.commit;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** A WebDataset {@code wids} index: shard URLs (relative to the index) with exact sample counts. */
public record WidsIndex(@JsonProperty("wids_version") int widsVersion, String name, List<Entry> shardlist) {
  /** One shard. */
  public record Entry(String url, long nsamples, long filesize) {}
}
