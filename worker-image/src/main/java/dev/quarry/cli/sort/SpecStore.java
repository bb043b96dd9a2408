package dev.quarry.cli.sort;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.quarry.core.store.S3Settings;
import java.net.URI;

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
      result = result.withEndpoint(endpoint(endpoint));
    }
    if (region != null && !region.isBlank()) {
      result = result.withRegion(region);
    }
    if (pathStyle != null) {
      result = result.withPathStyle(pathStyle);
    }
    return result;
  }

  private static URI endpoint(String text) {
    try {
      URI uri = new URI(text);
      if (uri.getHost() != null && ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
        return uri;
      }
    } catch (java.net.URISyntaxException e) {
      // The same message as for another scheme.
    }
    throw new IllegalArgumentException("Invalid store.endpoint: " + text
        + " (must be an http:// or https:// URL with a host)");
  }
}
