package dev.quarry.core.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;

/**
 * An object's bytes known in advance: their length, their SHA-256, and a way to read them again from the start (for
 * a retry, or a second pass). A caller that hashes its output anyway (a shard's manifest entry) hands the hash over,
 * so that the store need not hash the bytes again to sign them.
 */
public record HashedContent(long length, byte[] sha256, Opener opener, RangedContent ranges) {
  /** Opens the bytes from the start; each call gives a fresh stream. */
  @FunctionalInterface
  public interface Opener {
    InputStream open() throws IOException;
  }

  /**
   * The content could not be read as announced (a file that shrank or could not be read while it was sent, or other
   * than its length): the caller's error or its disk's, which sending again does not mend, so a request fails at
   * once rather than being retried as a network error would be.
   */
  public static class Unreadable extends IOException {
    private static final long serialVersionUID = 1L;

    Unreadable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The content read again is not what was hashed ({@link BlockChecksums}): what it is read from changed. */
  public static final class Changed extends Unreadable {
    private static final long serialVersionUID = 1L;

    Changed(String message) {
      super(message, null);
    }
  }

  /** The content gave another number of bytes than announced. */
  public static final class LengthMismatch extends Unreadable {
    private static final long serialVersionUID = 1L;

    LengthMismatch(String message) {
      super(message, null);
    }

    /**
     * {@code in}, failing with a {@code LengthMismatch} as soon as it turns out longer or shorter than {@code length}
     * bytes (an upload that trusted the length would otherwise store a cut object, or wait for bytes never sent), and
     * with {@link Unreadable} when it cannot be read (an interruption stays one).
     */
    static InputStream checking(InputStream in, long length) {
      // An InputStream, not a FilterInputStream: its skip reads through read(), so skipped bytes are counted too.
      return new InputStream() {
        private long read;

        @Override
        public int read() throws IOException {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int wanted) throws IOException {
          if (wanted == 0) {
            return 0;
          }
          // One byte past the announced end is asked for, to tell "ended" from "goes on".
          int n;
          try {
            n = in.read(buffer, offset, (int) Math.min(wanted, Math.max(1, length - read)));
          } catch (Unreadable | InterruptedIOException | ClosedByInterruptException e) {
            throw e;
          } catch (IOException e) {
            throw new Unreadable(e.getMessage(), e);
          }
          if (n < 0) {
            if (read < length) {
              throw new LengthMismatch("its content ended after " + read + " of the " + length + " bytes announced");
            }
            return -1;
          }
          read += n;
          if (read > length) {
            throw new LengthMismatch("its content has more than the " + length + " bytes announced");
          }
          return n;
        }

        @Override
        public void close() throws IOException {
          in.close();
        }
      };
    }
  }

  /**
   * @param opener the bytes from the start
   * @param ranges the same bytes at any offset, or null when they can be read only from the start: given, an upload
   *     that cannot send the object in one signed request (over HTTPS, or past 5 GiB) sends its parts straight from
   *     them rather than through buffers ({@link ObjectStore#put(String, RangedContent)})
   */
  public HashedContent {
    if (length < 0 || sha256.length != 32 || (ranges != null && ranges.length() != length)) {
      throw new IllegalArgumentException("Invalid content: " + length + " bytes, a " + sha256.length
          + "-byte SHA-256" + (ranges == null ? "" : ", ranges of " + ranges.length() + " bytes"));
    }
  }

  /** Bytes that can be read only from the start. */
  public HashedContent(long length, byte[] sha256, Opener opener) {
    this(length, sha256, opener, null);
  }

  /** The bytes of {@code ranges}, whose SHA-256 is {@code sha256}. */
  public static HashedContent of(RangedContent ranges, byte[] sha256) {
    return new HashedContent(ranges.length(), sha256, () -> ranges.open(0, ranges.length()), ranges);
  }

  /**
   * The bytes of {@code ranges}, whose SHA-256 is {@code sha256} and whose blocks' checksums are {@code blocks}, taken
   * in the same pass: every read of them again fails with {@link Changed} before it gives a block unlike that pass's,
   * for bytes read from something that may change before they are sent (an input of a sort).
   */
  public static HashedContent of(RangedContent ranges, byte[] sha256, BlockChecksums blocks) {
    return of(blocks.verifying(ranges), sha256);
  }

  /**
   * The bytes from the start, failing with {@link LengthMismatch} as soon as they turn out longer or shorter than
   * announced: an upload that trusted the length would otherwise store a cut object, or wait for bytes never sent.
   */
  InputStream open() throws IOException {
    return LengthMismatch.checking(opener.open(), length);
  }
}
