package dev.quarry.core.sync.cas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManifestTest {
  private static final Digest HELLO = Digest.of("hello\n".getBytes(StandardCharsets.UTF_8));

  @Test
  void equalFoldersHaveIdenticalBytesWhateverTheEntryOrder() {
    TreeEntry a = TreeEntry.file("b.txt", 0644, HELLO);
    TreeEntry b = TreeEntry.symlink("a-link", "../x");
    TreeEntry c = TreeEntry.directory("Z", 0755, Digest.of(new byte[3]), 4, 100);
    Manifest one = Manifest.of(List.of(a, b, c));
    Manifest two = Manifest.of(List.of(c, a, b));
    assertThat(one.encoded()).isEqualTo(two.encoded());
    assertThat(one.digest()).isEqualTo(two.digest());
    assertThat(one.entries()).extracting(TreeEntry::name).containsExactly("Z", "a-link", "b.txt");
    assertThat(one.files()).isEqualTo(6);
    assertThat(one.bytes()).isEqualTo(106);
  }

  @Test
  void bytesAreTheDocumentedCanonicalJson() {
    Manifest manifest = Manifest.of(List.of(TreeEntry.file("b.txt", 0644, HELLO), TreeEntry.symlink("l", "b.txt")));
    assertThat(new String(manifest.encoded(), StandardCharsets.UTF_8)).isEqualTo(
        "{\"format\":\"quarry-tree/1\",\"entries\":[{\"name\":\"b.txt\",\"type\":\"file\",\"mode\":\"0644\","
            + "\"sha256\":\"" + HELLO.hex() + "\",\"size\":6},{\"name\":\"l\",\"type\":\"symlink\",\"mode\":\"0777\","
            + "\"target\":\"b.txt\"}]}");
  }

  @Test
  void namesSortByUtf8BytesAndSurviveARoundTrip() {
    Manifest manifest = Manifest.of(List.of(TreeEntry.file("é", 0600, HELLO), TreeEntry.file("z", 0755, HELLO),
        TreeEntry.file("\uD83D\uDE00 emoji", 0644, Digest.EMPTY), TreeEntry.file("new\nline", 0644, HELLO)));
    assertThat(manifest.entries()).extracting(TreeEntry::name)
        .containsExactly("new\nline", "z", "é", "\uD83D\uDE00 emoji");
    Manifest decoded = Manifest.decode(manifest.encoded());
    assertThat(decoded.entries()).isEqualTo(manifest.entries());
    assertThat(decoded.digest()).isEqualTo(manifest.digest());
  }

  @Test
  void refusesNamesThatCouldEscapeTheFolder() {
    for (String name : List.of("..", ".", "a/b", "", "nul\0")) {
      assertThatThrownBy(() -> TreeEntry.file(name, 0644, HELLO)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Invalid entry name: ");
    }
    String hostile = "{\"format\":\"quarry-tree/1\",\"entries\":[{\"name\":\"..\",\"type\":\"file\",\"mode\":\"0644\","
        + "\"sha256\":\"" + HELLO.hex() + "\",\"size\":6}]}";
    assertThatThrownBy(() -> Manifest.decode(hostile.getBytes(StandardCharsets.UTF_8)))
        .hasMessageContaining("Invalid entry name: ..");
  }

  @Test
  void refusesDuplicatesUnsortedEntriesAndOtherFormats() {
    assertThatThrownBy(() -> Manifest.of(List.of(TreeEntry.file("a", 0644, HELLO), TreeEntry.file("a", 0644, HELLO))))
        .hasMessage("Invalid tree manifest: entry a is duplicated or out of order");
    String unsorted = "{\"format\":\"quarry-tree/1\",\"entries\":[" + entry("b") + "," + entry("a") + "]}";
    assertThatThrownBy(() -> Manifest.decode(unsorted.getBytes(StandardCharsets.UTF_8)))
        .hasMessage("Invalid tree manifest: entry a is duplicated or out of order");
    assertThatThrownBy(() -> Manifest.decode("{\"format\":\"quarry-tree/9\",\"entries\":[]}".getBytes()))
        .hasMessageStartingWith("Invalid tree manifest format: quarry-tree/9");
  }

  @Test
  void digestCarriesTheSize() {
    assertThat(Digest.EMPTY.hex()).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assertThat(new Digest(HELLO.hex(), 7)).isNotEqualTo(HELLO);
    assertThatThrownBy(() -> new Digest("ABC", 1)).hasMessageStartingWith("Invalid SHA-256 digest: ABC");
    assertThatThrownBy(() -> Digest.parseHex("sha256:xyz")).hasMessageStartingWith("Invalid version digest");
  }

  private static String entry(String name) {
    return "{\"name\":\"" + name + "\",\"type\":\"file\",\"mode\":\"0644\",\"sha256\":\"" + HELLO.hex()
        + "\",\"size\":6}";
  }
}
