package dev.quarry.core.cache.copy;

import dev.quarry.core.store.ObjectInfo;

/**
 * What an image's source looked like when it was copied: a source whose size or version tag differs later has been
 * replaced, and its copy is stale. For files the tag is size and modification time in nanoseconds; for S3, the ETag.
 */
public record SourceIdentity(String url, long size, String etag) {
  public static SourceIdentity of(String url, ObjectInfo info) {
    return new SourceIdentity(url, info.size(), info.etag());
  }
}
