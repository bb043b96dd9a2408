package dev.quarry.core.archive.tar;

/** Constants of the POSIX tar format (ustar, with GNU and PAX extensions) shared by the reader and the writer. */
public final class TarFormat {
  public static final int BLOCK = 512;

  /** Two zero blocks end an archive. */
  public static final byte[] END_OF_ARCHIVE = new byte[2 * BLOCK];

  // Header field offsets and lengths (POSIX.1-1988 ustar).
  static final int NAME = 0;
  static final int NAME_LEN = 100;
  static final int MODE = 100;
  static final int UID = 108;
  static final int GID = 116;
  static final int ID_LEN = 8;
  static final int SIZE = 124;
  static final int MTIME = 136;
  static final int NUMBER_LEN = 12;
  static final int CHECKSUM = 148;
  static final int CHECKSUM_LEN = 8;
  static final int TYPE = 156;
  static final int LINKNAME = 157;
  static final int MAGIC = 257;
  static final int VERSION = 263;
  static final int UNAME = 265;
  static final int GNAME = 297;
  static final int OWNER_LEN = 32;
  static final int DEVMAJOR = 329;
  static final int DEVMINOR = 337;
  static final int PREFIX = 345;
  static final int PREFIX_LEN = 155;

  // Type flags.
  static final byte REGULAR = '0';
  static final byte REGULAR_OLD = 0;
  static final byte CONTIGUOUS = '7';
  static final byte HARD_LINK = '1';
  static final byte SYMLINK = '2';
  static final byte CHAR_DEVICE = '3';
  static final byte BLOCK_DEVICE = '4';
  static final byte DIRECTORY = '5';
  static final byte FIFO = '6';
  static final byte PAX_LOCAL = 'x';
  static final byte PAX_GLOBAL = 'g';
  static final byte GNU_LONG_NAME = 'L';
  static final byte GNU_LONG_LINK = 'K';
  static final byte GNU_SPARSE = 'S';

  /** Largest size an 11-digit octal field holds; larger sizes need PAX (or GNU base-256). */
  static final long MAX_OCTAL_SIZE = 077777777777L;

  private TarFormat() {}

  /** {@code length} rounded up to whole blocks. */
  public static long padded(long length) {
    return (length + BLOCK - 1) / BLOCK * BLOCK;
  }
}
