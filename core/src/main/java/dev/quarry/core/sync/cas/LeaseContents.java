package dev.quarry.core.sync.cas;

import dev.quarry.core.store.LimitedInputStream;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Set;
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

  public static byte[] encode(Collection<Manifest> manifests) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (Writer out = new OutputStreamWriter(new GZIPOutputStream(bytes), StandardCharsets.US_ASCII)) {
      for (Manifest manifest : manifests) {
        for (TreeObject object : manifest.objects()) {
          out.write("tree " + object.digest().hex() + "\n");
        }
        for (TreeEntry entry : manifest.entries()) {
          if (entry.isFile()) {
            out.write("blob " + entry.digest().hex() + "\n");
          }
        }
      }
    }
    return bytes.toByteArray();
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
