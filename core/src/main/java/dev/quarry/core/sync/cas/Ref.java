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

  /** {@code json}: the object's bytes, read bounded. Errors name the ref and never quote its content. */
  public static Ref parse(String name, byte[] json) {
    Ref ref;
    try {
      ref = Json.read(json, Ref.class);
    } catch (IOException e) {
      throw new IllegalArgumentException("Invalid ref " + name + ": not a Quarry ref (not JSON of that form)");
    }
    if (ref == null || !FORMAT.equals(ref.format())) {
      throw new IllegalArgumentException("Invalid ref " + name + ": unknown format (must be " + FORMAT
          + "; a newer Quarry wrote it?)");
    }
    try {
      if (ref.root() == null) {
        throw new IllegalArgumentException("no root");
      }
      ref.rootDigest();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid ref " + name + ": its root is not a digest (must be sha256: and 64"
          + " lowercase hex characters, with a size of 0 or more)");
    }
    return ref;
  }

  public Digest rootDigest() {
    return new Digest(Digest.parseHex(root), rootSize);
  }

  public byte[] toJson() {
    return Json.bytes(this);
  }
}
