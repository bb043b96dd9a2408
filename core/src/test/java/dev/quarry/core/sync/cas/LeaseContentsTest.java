package dev.quarry.core.sync.cas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class LeaseContentsTest {
  @Test
  void theDigestListIsTheOneWrittenLineByLineAndReadsBack() throws Exception {
    // A chunked folder (objects of its own), a folder holding it, a link and files: more than one buffer of lines.
    List<TreeEntry> flat = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      flat.add(TreeEntry.file(String.format("f%06d", i), 0644, Digest.of(Integer.toString(i).getBytes())));
    }
    Manifest big = Manifest.of(flat);
    Manifest top = Manifest.of(List.of(TreeEntry.directory("big", 0755, big.digest(), big.files(), big.bytes()),
        TreeEntry.symlink("link", "big/f000001"), TreeEntry.file("readme", 0644, Digest.of(new byte[3]))));
    List<Manifest> folders = List.of(top, big);

    byte[] encoded = LeaseContents.encode(folders);

    assertThat(new GZIPInputStream(new ByteArrayInputStream(encoded)).readAllBytes())
        .isEqualTo(new GZIPInputStream(new ByteArrayInputStream(lineByLine(folders))).readAllBytes());
    Set<String> trees = new HashSet<>();
    Set<String> blobs = new HashSet<>();
    LeaseContents.decode("lease", new ByteArrayInputStream(encoded), trees, blobs);
    assertThat(trees).hasSize(big.objects().size() + 1).contains(top.digest().hex(), big.digest().hex());
    assertThat(blobs).hasSize(20_001).contains(flat.getLast().digest().hex());
  }

  /** The lines as LeaseContents wrote them before it wrote bytes: a Writer over gzip, one line at a time. */
  private static byte[] lineByLine(List<Manifest> folders) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (Writer out = new OutputStreamWriter(new GZIPOutputStream(bytes), StandardCharsets.US_ASCII)) {
      for (Manifest manifest : folders) {
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
}
