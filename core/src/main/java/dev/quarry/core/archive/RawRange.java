package dev.quarry.core.archive;

/**
 * Where one member's raw bytes lie in an uncompressed tar stream: its extended headers (PAX, GNU long name), its
 * header block, its data and the padding to the next 512-byte block. Concatenating the raw ranges of members, then
 * {@link dev.quarry.core.archive.tar.TarFormat#END_OF_ARCHIVE}, gives a valid tar without parsing anything.
 */
public record RawRange(long offset, long length) {
  public RawRange {
    if (offset < 0 || length <= 0) {
      throw new IllegalArgumentException("Invalid raw range: offset " + offset + ", length " + length);
    }
  }

  public long end() {
    return offset + length;
  }
}
