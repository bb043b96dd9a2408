package dev.quarry.core.sync.cas;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Where a large folder's sorted entries are cut into chunks (docs/formats.md, "Chunked folders"): after a name whose
 * SHA-256 starts with a 32-bit number divisible by {@link #BOUNDARY_DIVISOR}, once the chunk holds at least
 * {@link #MIN_ITEMS}, and always at {@link #MAX_ITEMS}. The cut depends on the names near it only, so adding, removing
 * or changing one entry changes one chunk (two when its name is itself a boundary), and the index path above it.
 * The same rule cuts an index's chunk list, by each chunk's first name, when a folder has more chunks than an index
 * may hold.
 */
public final class Chunking {
  /** The most entries a folder's single manifest, a chunk, or an index's chunk list holds. */
  public static final int MAX_ITEMS = 4096;
  /** The fewest items a cut leaves in a chunk, but for a folder's or an index's last one. */
  public static final int MIN_ITEMS = 256;
  /** A name is a boundary when this divides the first four bytes of its SHA-256: on average one name in 1024. */
  public static final int BOUNDARY_DIVISOR = 1024;

  /** Above this many items, work that is the same for each item runs on all cores. */
  static final int PARALLEL_ITEMS = 4 * MAX_ITEMS;
  private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(Digest::sha256);

  private Chunking() {}

  /** Whether a folder of this many entries is stored as chunks under an index rather than one manifest. */
  public static boolean isChunked(int entries) {
    return entries > MAX_ITEMS;
  }

  /** The exclusive end of each chunk over items with these names, in order; the last is {@code names.size()}. */
  public static List<Integer> cuts(List<String> names) {
    boolean[] boundaries = boundaries(names);
    List<Integer> ends = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < names.size(); i++) {
      int held = i + 1 - start;
      if (held >= MAX_ITEMS || (held >= MIN_ITEMS && boundaries[i])) {
        ends.add(i + 1);
        start = i + 1;
      }
    }
    if (start < names.size()) {
      ends.add(names.size());
    }
    return ends;
  }

  /**
   * Which names are boundaries, hashed on all cores when there are many (a folder of a million entries hashes a
   * million names): whether a name is one depends on that name alone.
   */
  private static boolean[] boundaries(List<String> names) {
    boolean[] boundaries = new boolean[names.size()];
    IntStream indexes = IntStream.range(0, names.size());
    if (names.size() > PARALLEL_ITEMS) {
      indexes = indexes.parallel();
    }
    indexes.forEach(i -> boundaries[i] = isBoundary(SHA256.get(), names.get(i)));
    return boundaries;
  }

  static boolean isBoundary(MessageDigest sha256, String name) {
    byte[] hash = sha256.digest(name.getBytes(StandardCharsets.UTF_8));
    int first = ((hash[0] & 0xff) << 24) | ((hash[1] & 0xff) << 16) | ((hash[2] & 0xff) << 8) | (hash[3] & 0xff);
    return Integer.remainderUnsigned(first, BOUNDARY_DIVISOR) == 0;
  }
}
