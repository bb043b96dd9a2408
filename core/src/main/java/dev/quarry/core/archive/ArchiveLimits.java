package dev.quarry.core.archive;

/**
 * Caps that keep a hostile or broken shard from exhausting memory or disk: the size of one member's data, the size of
 * extended headers, and for compressed formats the expansion ratio (zip bombs).
 *
 * @param maxMemberBytes largest member whose data may be read whole into memory
 * @param maxHeaderBytes largest PAX extended header or GNU long name
 * @param maxExpansionRatio largest uncompressed-to-compressed ratio of one zip member
 * @param maxUncompressedBytes largest total of uncompressed bytes one shard may expand to
 */
public record ArchiveLimits(long maxMemberBytes, int maxHeaderBytes, int maxExpansionRatio,
    long maxUncompressedBytes) {

  /** 1 GiB members, 1 MiB headers, expansion up to 1000x, 1 TiB per shard. */
  public static final ArchiveLimits DEFAULT = new ArchiveLimits(1L << 30, 1 << 20, 1000, 1L << 40);

  /**
   * The limits of records' raw tar bytes read back (a sort's create): those extract found in a tar, under
   * {@link #DEFAULT}, or wrote into a pack for a zip or msgpack member, whose name may be a key and a suffix of up to
   * DEFAULT's header bytes each, so a PAX header of twice that and its record's framing.
   */
  public static final ArchiveLimits RECORDS_READ_BACK = new ArchiveLimits(DEFAULT.maxMemberBytes(),
      2 * DEFAULT.maxHeaderBytes() + 1024, DEFAULT.maxExpansionRatio(), DEFAULT.maxUncompressedBytes());

  public ArchiveLimits {
    if (maxMemberBytes <= 0 || maxMemberBytes > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("Invalid member size cap: " + maxMemberBytes + " (must be 1 to 2^31-17)");
    }
    if (maxHeaderBytes < 512 || maxExpansionRatio < 1 || maxUncompressedBytes < 1) {
      throw new IllegalArgumentException("Invalid archive limits: " + maxHeaderBytes + ", " + maxExpansionRatio + ", "
          + maxUncompressedBytes);
    }
  }
}
