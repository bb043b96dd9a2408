package dev.quarry.core.sync.cas;

import dev.quarry.core.text.Printable;
import java.util.Objects;

/**
 * One entry of a directory manifest.
 *
 * @param name one path component of at most 255 bytes of UTF-8 (Linux's NAME_MAX): not empty, not "." or "..",
 *     no '/' and no NUL
 * @param type file, directory or symbolic link
 * @param mode the permission bits (0 to 07777)
 * @param digest the file's content, or the child directory's manifest; null for a symbolic link
 * @param target the symbolic link's target, as written; null otherwise
 * @param files regular files and symbolic links in this entry (1 for a file or link, the subtree's count for a folder)
 * @param bytes bytes of regular files in this entry (its size for a file, the subtree's total for a folder)
 */
public record TreeEntry(String name, EntryType type, int mode, Digest digest, String target, long files, long bytes) {
  public TreeEntry {
    requireValidName(name);
    Objects.requireNonNull(type, "type");
    if (mode < 0 || mode > 07777) {
      throw new IllegalArgumentException("Invalid mode of " + printable(name) + ": " + Integer.toOctalString(mode)
          + " (must be permission bits, 0 to 7777 octal)");
    }
    if ((type == EntryType.SYMLINK) != (digest == null) || (type == EntryType.SYMLINK) != (target != null)) {
      throw new IllegalArgumentException("Invalid entry " + printable(name) + ": a symbolic link has a target and no"
          + " digest, files and folders have a digest and no target");
    }
    if (type == EntryType.SYMLINK && (target.isEmpty() || target.indexOf('\0') >= 0)) {
      throw new IllegalArgumentException("Invalid symbolic link target of " + printable(name)
          + " (must be non-empty, no NUL)");
    }
  }

  public static TreeEntry file(String name, int mode, Digest digest) {
    return new TreeEntry(name, EntryType.FILE, mode, digest, null, 1, digest.size());
  }

  public static TreeEntry directory(String name, int mode, Digest manifest, long files, long bytes) {
    return new TreeEntry(name, EntryType.DIRECTORY, mode, manifest, null, files, bytes);
  }

  public static TreeEntry symlink(String name, String target) {
    return new TreeEntry(name, EntryType.SYMLINK, 0777, null, target, 1, 0);
  }

  public boolean isDirectory() {
    return type == EntryType.DIRECTORY;
  }

  public boolean isSymlink() {
    return type == EntryType.SYMLINK;
  }

  public boolean isFile() {
    return type == EntryType.FILE;
  }

  /**
   * Refuses names that could escape the folder they are written into, so a hostile manifest cannot, and names no
   * Linux filesystem can hold.
   */
  static void requireValidName(String name) {
    if (name == null || name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
        || name.indexOf('\0') >= 0 || (name.length() > 85 && utf8Length(name) > 255)) {
      throw new IllegalArgumentException("Invalid entry name: " + printable(name)
          + " (must be one path component of at most 255 bytes: not empty, not . or .., no / or NUL)");
    }
  }

  /** The most bytes a path of a version may have: Linux's PATH_MAX. */
  public static final int MAX_PATH_BYTES = 4096;

  /**
   * {@code parent}/{@code name} (just {@code name} under the top, where {@code parent} is ""), refused when longer
   * than {@link #MAX_PATH_BYTES}: names are checked one by one, so a hostile version could otherwise nest them into
   * a path no command can write, or list one of megabytes. Every walk of a version's tree joins its paths here.
   */
  public static String childPath(String parent, String name) {
    String path = parent.isEmpty() ? name : parent + "/" + name;
    return requirePathLength(path);
  }

  /** Refuses a path of a version longer than {@link #MAX_PATH_BYTES}; returns it. */
  public static String requirePathLength(String path) {
    if (path.length() > MAX_PATH_BYTES / 3 && utf8Length(path) > MAX_PATH_BYTES) {
      throw new IllegalArgumentException("Invalid path in a version: " + printable(path) + " (must be at most "
          + MAX_PATH_BYTES + " bytes, Linux's PATH_MAX)");
    }
    return path;
  }

  private static int utf8Length(String name) {
    return name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
  }

  /** A name from a manifest as it may appear in a one-line message: {@link Printable#of}. */
  public static String printable(String text) {
    return Printable.of(text);
  }
}
