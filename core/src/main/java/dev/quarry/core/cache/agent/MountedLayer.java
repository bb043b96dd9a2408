package dev.quarry.core.cache.agent;

import dev.quarry.core.cache.host.LoopDevice;
import dev.quarry.core.cache.host.MountEntry;
import java.nio.file.Path;

/** One mount stacked at an image's mount point, with the loop device and file behind it (null when not a loop). */
record MountedLayer(MountEntry mount, LoopDevice loop) {
  /** Whether this layer serves {@code file} as it is now (not a deleted, replaced file). */
  boolean serves(Path file) {
    return loop != null && !loop.deleted() && loop.backingFile().equals(file);
  }
}
