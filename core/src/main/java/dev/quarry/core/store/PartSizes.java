package dev.quarry.core.store;

/**
 * The sizes of a multipart upload's parts. S3 allows 10,000 parts, so parts of a fixed 8 MiB cap an object at 78
 * GiB, less than one extract worker's pack of a large sort. Parts start at the set size, so small objects keep small
 * buffers, and double every {@code partsPerStep} parts up to {@link #MAX_GROWN_BYTES}: from 8 MiB an object of 1,058 GiB
 * fits (one extract worker's pack of a 100 TiB sort on 100 workers). Memory grows with the object: the parts in flight are of the current size.
 *
 * @param firstBytes the set part size (at least S3's 5 MiB)
 * @param maxParts the most parts an upload may have
 * @param partsPerStep parts of one size before the size doubles
 * @param maxGrownBytes the size doubling stops at (a larger set size stays as set)
 */
record PartSizes(int firstBytes, int maxParts, int partsPerStep, int maxGrownBytes) {
  static final int MAX_PARTS = 10_000;
  static final int MAX_GROWN_BYTES = 128 << 20;
  private static final int PARTS_PER_STEP = 500;

  static PartSizes growingFrom(int firstBytes) {
    return new PartSizes(firstBytes, MAX_PARTS, PARTS_PER_STEP, MAX_GROWN_BYTES);
  }

  /** Parts of {@code bytes} each, up to 10,000. */
  static PartSizes fixed(int bytes) {
    return new PartSizes(bytes, MAX_PARTS, MAX_PARTS, bytes);
  }

  /** The most bytes S3 stores in one object. */
  static final long MAX_OBJECT_BYTES = 5L << 40;

  /**
   * The part size of an upload of {@code length} bytes that are read from where they lie, not held
   * ({@link RangedContent}): memory no longer bounds a part, so parts are as large as keeps {@value
   * S3Upload#PARTS_IN_FLIGHT} of them going at once, up to {@link #MAX_GROWN_BYTES}, and larger still past 10,000 of
   * those; at least {@code firstBytes}, in whole MiB. Fewer parts are fewer requests: a pack of 102 GiB, one extract
   * worker's of a 100 TiB sort on 1,000 workers, is 816 parts where parts grown from 8 MiB were 2,350. At most
   * {@link #MAX_OBJECT_BYTES} (the caller refuses more): 10,000 parts of at most 525 MiB, within S3's 5 GiB a part.
   */
  static int forLength(long length, int firstBytes) {
    long mib = 1 << 20;
    long quarter = Math.ceilDiv(Math.ceilDiv(length, S3Upload.PARTS_IN_FLIGHT), mib) * mib;
    long fitting = Math.ceilDiv(Math.ceilDiv(Math.min(length, MAX_OBJECT_BYTES), MAX_PARTS), mib) * mib;
    return (int) Math.max(firstBytes, Math.max(fitting, Math.min(quarter, MAX_GROWN_BYTES)));
  }

  /** The size of part {@code number} (1-based). */
  int ofPart(int number) {
    int step = Math.min((number - 1) / partsPerStep, 30);
    long grown = Math.min((long) firstBytes << step, maxGrownBytes);
    return (int) Math.max(firstBytes, grown);
  }

  /** The largest object the parts hold. */
  long maxObjectBytes() {
    long total = 0;
    for (int part = 1; part <= maxParts; part++) {
      total += ofPart(part);
    }
    return total;
  }
}
