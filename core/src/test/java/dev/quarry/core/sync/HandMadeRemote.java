package dev.quarry.core.sync;

import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Writes objects of a remote by hand, as a hostile or broken remote could hold them: raw manifests and blobs. */
final class HandMadeRemote {
  private final CasRemote remote;

  HandMadeRemote(CasRemote remote) {
    this.remote = remote;
  }

  ObjectStore store() {
    return remote.store();
  }

  /** Stores a blob under its own digest. */
  Digest blob(String content) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    Digest digest = Digest.of(bytes);
    remote.store().put(remote.layout().blobKey(digest), bytes);
    return digest;
  }

  /** Stores a canonical manifest of these entries. */
  Manifest tree(TreeEntry... entries) throws IOException {
    Manifest manifest = Manifest.of(List.of(entries));
    remote.putManifest(manifest);
    return manifest;
  }

  /** Stores manifest bytes exactly as given, under their digest; returns that digest. */
  Digest rawTree(String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    Digest digest = Digest.of(bytes);
    remote.store().put(remote.layout().treeKey(digest), bytes);
    return digest;
  }

  /** A manifest's JSON around these entry objects, in the order given. */
  static String manifestJson(String... entries) {
    return "{\"format\":\"quarry-tree/1\",\"entries\":[" + String.join(",", entries) + "]}";
  }

  static String fileJson(String name, String mode, Digest digest) {
    return "{\"name\":" + quoted(name) + ",\"type\":\"file\",\"mode\":\"" + mode + "\",\"sha256\":\"" + digest.hex()
        + "\",\"size\":" + digest.size() + "}";
  }

  static String dirJson(String name, Digest manifest, long files, long bytes) {
    return "{\"name\":" + quoted(name) + ",\"type\":\"dir\",\"mode\":\"0755\",\"sha256\":\"" + manifest.hex()
        + "\",\"size\":" + manifest.size() + ",\"files\":" + files + ",\"bytes\":" + bytes + "}";
  }

  static String quoted(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }
}
