package dev.quarry.core.sync.cas;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Every digest a push in flight relies on, stored beside its lease ({@code leases/<id>.trees.gz}): gzip of lines
 * {@code tree <hex>} and {@code blob <hex>}. A gc marks all of them, so it never deletes an object a push found present
 * and skipped, before the push's ref exists.
 */
public final class LeaseContents {
  private LeaseContents() {}

  public static byte[] encode(Collection<Manifest> manifests) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (Writer out = new OutputStreamWriter(new GZIPOutputStream(bytes), StandardCharsets.US_ASCII)) {
      for (Manifest manifest : manifests) {
        out.write("tree " + manifest.digest().hex() + "\n");
        for (TreeEntry entry : manifest.entries()) {
          if (entry.isFile()) {
            out.write("blob " + entry.digest().hex() + "\n");
          }
        }
      }
    }
    return bytes.toByteArray();
  }

  /** Adds the listed digests to {@code trees} and {@code blobs} (hex). */
  public static void decode(String key, byte[] data, Set<String> trees, Set<String> blobs) throws IOException {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        new GZIPInputStream(new ByteArrayInputStream(data)), StandardCharsets.US_ASCII))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("tree ")) {
          trees.add(line.substring(5));
        } else if (line.startsWith("blob ")) {
          blobs.add(line.substring(5));
        } else {
          throw new IOException("Cannot read " + key + ": unexpected line " + line);
        }
      }
    }
  }
}
