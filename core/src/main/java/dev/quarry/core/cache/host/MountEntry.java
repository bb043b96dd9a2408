package dev.quarry.core.cache.host;

import java.nio.file.Path;

/**
 * One line of {@code /proc/self/mountinfo}: a mount, its parent, the device of its filesystem and where it is.
 *
 * @param device major:minor of the mounted filesystem's device; for a squashfs on a loop device, the loop device
 */
public record MountEntry(int id, int parentId, String device, Path mountPoint, String fsType, String source) {}
