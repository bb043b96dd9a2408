package dev.quarry.core.sync.dvc;

import dev.quarry.core.text.Printable;

/**
 * What DVC names content by: the MD5 of a file's bytes, or of a folder's {@code .dir} listing (then written
 * {@code <md5>.dir}).
 *
 * @param md5 32 lowercase hex characters
 */
public record DvcHash(String md5, boolean isDir) {
  public DvcHash {
    if (!isMd5(md5)) {
      throw new IllegalArgumentException("Invalid DVC md5: " + Printable.of(md5)
          + " (must be 32 lowercase hex characters, with .dir for a folder)");
    }
  }

  /** {@code <md5>} or {@code <md5>.dir}. */
  public static DvcHash parse(String text) {
    if (text != null && text.endsWith(".dir")) {
      return new DvcHash(text.substring(0, text.length() - 4), true);
    }
    return new DvcHash(text, false);
  }

  static boolean isMd5(String text) {
    if (text == null || text.length() != 32) {
      return false;
    }
    for (int i = 0; i < 32; i++) {
      char c = text.charAt(i);
      if ((c < '0' || c > '9') && (c < 'a' || c > 'f')) {
        return false;
      }
    }
    return true;
  }

  /** Where DVC 3 keeps it under a remote's root: {@code files/md5/<2 hex>/<30 hex>[.dir]}. */
  public String key(String prefix) {
    String root = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
    return root + "files/md5/" + md5.substring(0, 2) + "/" + md5.substring(2) + (isDir ? ".dir" : "");
  }

  @Override
  public String toString() {
    return md5 + (isDir ? ".dir" : "");
  }
}
