package dev.quarry.core.sync.cas;

import dev.quarry.core.store.LimitedInputStream;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Collection;
import java.util.Set;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Every digest a push in flight relies on, stored beside its lease ({@code leases/<id>.trees.gz}): gzip of lines
 * {@code tree <hex>} (every manifest, chunk and chunk index) and {@code blob <hex>}. A gc marks all of them, so it
 * never deletes an object a push found present and skipped, before the push's ref exists.
 */
public final class LeaseContents {
  /** The most a lease's digest list may hold once decompressed: about 60 million digests. */
  public static final long MAX_LISTED_BYTES = 4L << 30;
  /** The most its compressed object may hold. */
  public static final long MAX_BYTES = 2L << 30;
  private static final int LINE = "tree ".length() + 64;

  private LeaseContents() {}

  /**
   * The gzip of the digest lines of these folders: each folder's objects ({@code tree}), then its files ({@code blob}).
   * The lines are written as bytes, compressed a megabyte at a time at gzip's fastest level: hex digests compress
   * about as well at any level, and a push of 100,000 files spent seconds writing them line by line at the default.
   */
  public static byte[] encode(Collection<Manifest> manifests) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (Lines lines = new Lines(new FastestGzip(bytes))) {
      for (Manifest manifest : manifests) {
        for (TreeObject object : manifest.objects()) {
          lines.add("tree ", object.digest());
        }
        for (TreeEntry entry : manifest.entries()) {
          if (entry.isFile()) {
            lines.add("blob ", entry.digest());
          }
        }
      }
    }
    return bytes.toByteArray();
  }

  /** Digest lines gathered into a buffer and written to {@code out} when it is full. */
  private static final class Lines implements AutoCloseable {
    private final OutputStream out;
    private final byte[] buffer = new byte[(1 << 20) / (LINE + 1) * (LINE + 1)];
    private int length;

    Lines(OutputStream out) {
      this.out = out;
    }

    /** {@code kind} (five ASCII characters), the digest's hex, a newline. */
    void add(String kind, Digest digest) throws IOException {
      if (length == buffer.length) {
        out.write(buffer, 0, length);
        length = 0;
      }
      String hex = digest.hex();
      for (int i = 0; i < kind.length(); i++) {
        buffer[length + i] = (byte) kind.charAt(i);
      }
      for (int i = 0; i < hex.length(); i++) {
        buffer[length + kind.length() + i] = (byte) hex.charAt(i);
      }
      buffer[length + LINE] = '\n';
      length += LINE + 1;
    }

    @Override
    public void close() throws IOException {
      try (out) {
        out.write(buffer, 0, length);
      }
    }
  }

  /** Gzip at {@link Deflater#BEST_SPEED}. */
  private static final class FastestGzip extends GZIPOutputStream {
    FastestGzip(ByteArrayOutputStream out) throws IOException {
      super(out, 1 << 16);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }

  /**
   * Adds the listed digests to {@code trees} and {@code blobs} (hex), reading {@code compressed} as a stream: lines
   * longer than a digest line, or more than {@link #MAX_LISTED_BYTES} bytes once decompressed, are refused.
   */
  public static void decode(String key, InputStream compressed, Set<String> trees, Set<String> blobs)
      throws IOException {
    try (InputStream in = new BufferedInputStream(new LimitedInputStream(new GZIPInputStream(compressed),
        MAX_LISTED_BYTES, "Cannot read " + key + ": it lists more than a lease may (4 GiB of digests)"))) {
      StringBuilder line = new StringBuilder(LINE);
      for (int b = in.read(); b >= 0; b = in.read()) {
        if (b != '\n') {
          if (line.length() == LINE) {
            throw new IOException("Cannot read " + key + ": a line is longer than \"tree <hex>\" or \"blob <hex>\"");
          }
          line.append((char) b);
          continue;
        }
        String text = line.toString();
        line.setLength(0);
        String hex = text.length() == LINE ? text.substring(5) : "";
        if (!Digest.isDigestHex(hex)) {
          throw new IOException("Cannot read " + key + ": a line is not \"tree <hex>\" or \"blob <hex>\"");
        } else if (text.startsWith("tree ")) {
          trees.add(hex);
        } else if (text.startsWith("blob ")) {
          blobs.add(hex);
        } else {
          throw new IOException("Cannot read " + key + ": a line is not \"tree <hex>\" or \"blob <hex>\"");
        }
      }
      if (!line.isEmpty()) {
        throw new IOException("Cannot read " + key + ": its last line is cut short");
      }
    } catch (java.util.zip.ZipException e) {
      throw new IOException("Cannot read " + key + ": not gzip data");
    }
  }
}
