package dev.quarry.core.cache.agent;

import java.io.IOException;
import java.util.Optional;

/**
 * Permission to copy an image into this node's cache, shared across nodes so that warming many nodes at once does
 * not overload the shared source. The Kubernetes agent backs this with Lease objects.
 */
public interface CopySlots {
  /** A held slot for copying {@code image}, or empty when every slot is taken; closing it frees the slot. */
  Optional<Slot> tryAcquire(String image) throws IOException;

  /** A slot; closing releases it. */
  interface Slot extends AutoCloseable {
    @Override
    void close();
  }

  /** No limit beyond one copy at a time on this node. */
  static CopySlots unlimited() {
    return image -> Optional.of(() -> {});
  }
}
