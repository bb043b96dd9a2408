package dev.quarry.cli.sort;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.quarry.core.store.S3Settings;

/**
 * The {@code store} of a ShardSortJob spec: where its S3 store is. The credentials Secret it may name is the
 * operator's business; on the command line credentials come from the environment or an AWS profile.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record SpecStore(String endpoint, String region, Boolean pathStyle) {
  static final SpecStore NONE = new SpecStore(null, null, null);

  /** {@code settings} with each field this store gives in its place: the spec wins over the environment. */
  S3Settings over(S3Settings settings) {
    S3Settings result = settings;
    if (endpoint != null && !endpoint.isBlank()) {
      result = result.withEndpoint(S3Settings.endpointFrom("store.endpoint", endpoint));
    }
    if (region != null && !region.isBlank()) {
      result = result.withRegion(region);
    }
    if (pathStyle != null) {
      result = result.withPathStyle(pathStyle);
    }
    return result;
  }
}
