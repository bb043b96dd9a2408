package dev.quarry.core.cache.agent;

/**
 * One image the agent must mount at {@code <mountRoot>/<name>}.
 *
 * @param source an absolute path on storage every node mounts, or an {@code s3://bucket/key} URL
 * @param sha256 lowercase hex SHA-256 of the image file, or null when not declared (required for S3)
 */
public record ImageSpec(String name, String source, String sha256, boolean pinned, int priority) {
  /** S3 images have no source a node can mount: they are downloaded into the cache before their first mount. */
  public boolean inObjectStore() {
    return source.startsWith("s3://");
  }
}
