package dev.quarry.core.cache.agent;

import dev.quarry.core.store.Location;

/**
 * Where the agent finds an image's source: the store and key of a path or an {@code s3://} URL. Usually
 * {@code ObjectStores::locate}; the Kubernetes agent resolves it against the NodeCache's current object store.
 */
@FunctionalInterface
public interface ImageSources {
  Location locate(String url);
}
