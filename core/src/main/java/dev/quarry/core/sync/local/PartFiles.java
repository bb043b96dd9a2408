package dev.quarry.core.sync.local;

import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Pull's temporaries: each file or link is written as {@code .quarry-part-<16 hex>} beside its destination, then
 * renamed into place. A killed pull leaves them behind: scans (status, push) leave them out of the tree, and the next
 * pull that writes into their folder deletes them. The name is short whatever the destination's, so that names of
 * up to 255 bytes can be written.
 */
public final class PartFiles {
  public static final String PREFIX = ".quarry-part-";

  private PartFiles() {}

  /** A new temporary name beside {@code target}, so the final rename stays within one folder. */
  public static Path beside(Path target) {
    return target.resolveSibling(PREFIX + String.format("%016x", ThreadLocalRandom.current().nextLong()));
  }

  /** Whether a file or link of this name is a pull's temporary: 1 to 16 lowercase hex (older pulls wrote fewer). */
  public static boolean isPartFile(String name) {
    int digits = name.length() - PREFIX.length();
    if (!name.startsWith(PREFIX) || digits < 1 || digits > 16) {
      return false;
    }
    for (int i = PREFIX.length(); i < name.length(); i++) {
      char c = name.charAt(i);
      if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
        return false;
      }
    }
    return true;
  }
}
