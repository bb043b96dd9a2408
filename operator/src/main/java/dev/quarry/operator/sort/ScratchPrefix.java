package dev.quarry.operator.sort;

import dev.quarry.api.shardsort.ShardSortJob;
import dev.quarry.api.shardsort.ShardSortJobSpec;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Where a job keeps its intermediate data: spec.scratch, else a folder of its own in the output bucket. */
final class ScratchPrefix {
  private static final Pattern BUCKET = Pattern.compile("^s3://([^/]+)/");

  private ScratchPrefix() {}

  static String of(ShardSortJob job) {
    ShardSortJobSpec spec = job.getSpec();
    if (spec.scratch() != null) {
      return spec.scratch().endsWith("/") ? spec.scratch() : spec.scratch() + "/";
    }
    return "s3://" + bucket(spec) + "/.quarry-scratch/" + job.getMetadata().getNamespace() + "/"
        + job.getMetadata().getName() + "/";
  }

  /** The output bucket; for a keymap order without an output template, the input's. */
  private static String bucket(ShardSortJobSpec spec) {
    String url = spec.output().template() != null ? spec.output().template()
        : spec.input().template() != null ? spec.input().template()
        : spec.input().prefix() != null ? spec.input().prefix()
        : spec.input().objects().get(0);
    Matcher matcher = BUCKET.matcher(url);
    if (!matcher.find()) {
      throw new IllegalArgumentException("Cannot choose a scratch prefix: " + url + " is not an s3:// URL; set"
          + " spec.scratch");
    }
    return matcher.group(1);
  }
}
