package dev.quarry.core.fs;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one rule for writing inside a folder whose names come from elsewhere (a remote version): a relative name is
 * resolved under the root without following a symbolic link on the way. Every folder between the root and a name is
 * checked with lstat to be a real folder; a symbolic link standing where a folder must be is replaced by a folder (it
 * is ours to replace, inside the root), never followed. Names are checked too: no empty, "." or ".." component, no
 * leading '/', no NUL. Folders found real are remembered, so a folder costs one lstat per run, not one per file.
 *
 * <p>The root itself is the caller's choice and may be a link. The rule guards against names from a remote, not
 * against another local process racing to swap folders for links while a pull runs.
 */
public final class ConfinedFolder {
  private static final int ATTEMPTS = 3;

  private final Path root;
  private final Set<String> realFolders = ConcurrentHashMap.newKeySet();
  private final Map<String, Way> notClear = new ConcurrentHashMap<>();
  private final Set<Path> created = ConcurrentHashMap.newKeySet();

  public ConfinedFolder(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  public Path root() {
    return root;
  }

  /** The path of a relative name, checked component by component; nothing on the way is looked at. */
  public Path resolve(String relative) {
    requireRelative(relative);
    return relative.isEmpty() ? root : root.resolve(relative);
  }

  /** What stands on the way to a name: the folders between the root and it. */
  public enum Way {
    /** Every folder on the way is a real folder: the name can be looked at. */
    CLEAR,
    /** A folder on the way is missing or is a symbolic link: {@link #folder} will create or replace it. */
    OPEN,
    /** A file (or other non-folder, non-link) stands where a folder must be. */
    BLOCKED
  }

  /**
   * What stands on the way to {@code relative} (not the name itself), by lstat of each folder once per run; only when
   * it is {@link Way#CLEAR} can stat-ing or reading the name not leave the root. Creates nothing.
   */
  public Way wayTo(String relative) throws IOException {
    String parent = parentOf(relative);
    if (parent.isEmpty() || realFolders.contains(parent)) {
      return Way.CLEAR;
    }
    Way known = notClear.get(parent);
    if (known != null) {
      return known;
    }
    Way way = wayTo(parent);
    if (way == Way.CLEAR) {
      try {
        BasicFileAttributes attributes =
            Files.readAttributes(resolve(parent), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        way = attributes.isDirectory() ? Way.CLEAR : attributes.isSymbolicLink() ? Way.OPEN : Way.BLOCKED;
      } catch (NoSuchFileException e) {
        way = Way.OPEN;
      }
    }
    if (way == Way.CLEAR) {
      realFolders.add(parent);
    } else {
      notClear.put(parent, way);
    }
    return way;
  }

  /** Makes {@code relative}'s parent a real folder (see {@link #folder}) and returns the name's path. */
  public Path parentReady(String relative, boolean replaceFiles) throws IOException {
    folder(parentOf(relative), replaceFiles);
    return resolve(relative);
  }

  /**
   * Makes {@code relative} and every folder on its way real folders: creates what is missing and replaces a symbolic
   * link that stands where a folder must be. A file in the way is replaced only when {@code replaceFiles}; otherwise
   * it is an IOException "Cannot create folder ...: a file is in the way".
   */
  public Path folder(String relative, boolean replaceFiles) throws IOException {
    Path path = resolve(relative);
    if (relative.isEmpty() || realFolders.contains(relative)) {
      return path;
    }
    folder(parentOf(relative), replaceFiles);
    for (int attempt = 1; ; attempt++) {
      BasicFileAttributes attributes = null;
      try {
        attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException e) {
        try {
          Files.createDirectory(path); // mkdir: never follows a link at the name itself
          created.add(path);
          break;
        } catch (FileAlreadyExistsException raced) {
          // Another thread made it; look again.
        }
      }
      if (attributes != null && attributes.isDirectory()) {
        break;
      }
      if (attributes != null && !attributes.isSymbolicLink() && !replaceFiles) {
        throw new IOException("Cannot create folder " + path + ": a file is in the way (pull with deleteExtra to"
            + " replace it)");
      }
      if (attempt == ATTEMPTS) {
        throw new IOException("Cannot create folder " + path + ": something else keeps appearing there");
      }
      if (attributes != null) {
        Files.deleteIfExists(path); // the link or file itself, not what a link points to
      }
    }
    realFolders.add(relative);
    notClear.remove(relative);
    return path;
  }

  /** Forgets what was learnt about folders at or under {@code path}, which is being deleted or replaced. */
  public void forgetUnder(Path path) {
    realFolders.removeIf(folder -> root.resolve(folder).startsWith(path));
    notClear.keySet().removeIf(folder -> root.resolve(folder).startsWith(path));
  }

  /** Deletes the folders this instance created that are still empty, deepest first; for undoing a failed write. */
  public void deleteEmptyCreated() {
    created.stream().sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(folder -> {
      try {
        Files.deleteIfExists(folder);
        realFolders.remove(root.relativize(folder).toString());
      } catch (IOException notEmpty) {
        // It holds something that was written: it stays.
      }
    });
    created.clear();
  }

  /** The relative name of {@code relative}'s folder: "" for a name at the root. */
  public static String parentOf(String relative) {
    int slash = relative.lastIndexOf('/');
    return slash < 0 ? "" : relative.substring(0, slash);
  }

  private static void requireRelative(String relative) {
    if (relative.isEmpty()) {
      return;
    }
    int start = 0;
    while (true) {
      int slash = relative.indexOf('/', start);
      int end = slash < 0 ? relative.length() : slash;
      if (end == start || (end - start == 1 && relative.charAt(start) == '.')
          || (end - start == 2 && relative.startsWith("..", start))) {
        throw new IllegalArgumentException("Invalid relative path: " + relative
            + " (must be names joined by /: none empty, . or .., no leading /)");
      }
      if (slash < 0) {
        break;
      }
      start = slash + 1;
    }
    if (relative.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("Invalid relative path: it holds a NUL character");
    }
  }
}
