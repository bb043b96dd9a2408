package dev.quarry.core.sync.cas;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.quarry.core.json.Json;
import java.io.IOException;

/**
 * The body of {@code refs/<name>}: a version's root manifest and its totals. Written last by a push, so a ref that
 * exists names a tree whose every object exists.
 */
@JsonPropertyOrder({"format", "root", "rootSize", "files", "bytes", "pushedAt"})
public record Ref(String format, String root, long rootSize, long files, long bytes, String pushedAt) {
  public static final String FORMAT = "quarry-ref/1";

  public static Ref of(Digest root, long files, long bytes, String pushedAt) {
    return new Ref(FORMAT, root.text(), root.size(), files, bytes, pushedAt);
  }

  public static Ref parse(String name, byte[] json) {
    try {
      Ref ref = Json.read(json, Ref.class);
      if (!FORMAT.equals(ref.format())) {
        throw new IllegalArgumentException("Invalid ref " + name + ": format " + ref.format() + " (must be " + FORMAT
            + "; a newer Quarry wrote it?)");
      }
      ref.rootDigest();
      return ref;
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid ref " + name + ": not a Quarry ref (" + e.getMessage() + ")", e);
    }
  }

  public Digest rootDigest() {
    return new Digest(Digest.parseHex(root), rootSize);
  }

  public byte[] toJson() {
    return Json.bytes(this);
  }
}
