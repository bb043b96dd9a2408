package dev.quarry.core.store;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One page of a file store's listing: the regular files under a prefix, walked depth-first with the entries of each
 * directory sorted so that the keys come out in UTF-8 binary order. A directory sorts as its name plus '/', which
 * places every key under it exactly where S3 would: "a-b" < "a.b" < "a/x" < "a0". Directories whose keys all sort
 * before start-after are skipped without being read; the rest are read again for each page, so paging through a
 * directory of n files costs O(n) per page. Symbolic links to files are objects; links to directories are skipped,
 * so that a link cannot make the walk loop. Temp files of uploads in progress are never listed, and those a killed
 * writer abandoned are removed on the way.
 */
final class FileTreeListing {
  private final FileStore store;
  private final String startAfter;
  private final int limit;
  private final List<ObjectInfo> found = new ArrayList<>();

  private FileTreeListing(FileStore store, String startAfter, int limit) {
    this.store = store;
    this.startAfter = startAfter;
    this.limit = limit;
  }

  /** Up to {@code limit} objects under {@code prefix} whose key sorts after {@code startAfter} (null: all). */
  static List<ObjectInfo> list(FileStore store, String prefix, String startAfter, int limit) throws IOException {
    int slash = prefix.lastIndexOf('/');
    String directoryKey = prefix.substring(0, slash + 1);
    FileTreeListing listing = new FileTreeListing(store, startAfter, limit);
    listing.walk(store.root().resolve(directoryKey), directoryKey, prefix.substring(slash + 1));
    return listing.found;
  }

  private record Entry(Path path, String sortKey, BasicFileAttributes attributes) {
    boolean isDirectory() {
      return attributes.isDirectory();
    }
  }

  /** Returns true when the page is full. */
  private boolean walk(Path directory, String directoryKey, String namePrefix) throws IOException {
    for (Entry entry : sortedEntries(directory, directoryKey, namePrefix)) {
      if (entry.isDirectory()) {
        if (!sortsAfterStart(entry.sortKey(), true)) {
          continue;
        }
        if (walk(entry.path(), entry.sortKey(), "")) {
          return true;
        }
      } else if (sortsAfterStart(entry.sortKey(), false)) {
        found.add(store.info(entry.sortKey(), entry.attributes()));
        if (found.size() >= limit) {
          return true;
        }
      }
    }
    return false;
  }

  /** For a directory: whether any key below {@code directoryKey} (which ends with '/') sorts after start-after. */
  private boolean sortsAfterStart(String key, boolean directory) {
    if (startAfter == null) {
      return true;
    }
    if (directory && startAfter.startsWith(key)) {
      return true;
    }
    return KeyOrder.compare(key, startAfter) > 0;
  }

  private List<Entry> sortedEntries(Path directory, String directoryKey, String namePrefix) throws IOException {
    List<Entry> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
      for (Path path : stream) {
        String name = path.getFileName().toString();
        if (name.startsWith(FileStore.UPLOAD_PREFIX)) {
          store.removeIfAbandoned(path);
          continue;
        }
        if (!name.startsWith(namePrefix)) {
          continue;
        }
        BasicFileAttributes attributes = attributes(path);
        if (attributes != null && attributes.isDirectory()) {
          entries.add(new Entry(path, directoryKey + name + "/", attributes));
        } else if (attributes != null && attributes.isRegularFile()) {
          entries.add(new Entry(path, directoryKey + name, attributes));
        }
      }
    } catch (NoSuchFileException | NotDirectoryException noDirectoryHere) {
      return List.of();
    }
    entries.sort(Comparator.comparing(Entry::sortKey, KeyOrder.UTF8_BINARY));
    return entries;
  }

  /** The entry's attributes; a link's target's when it is a file; null when it vanished or is a link to elsewhere. */
  private static BasicFileAttributes attributes(Path path) throws IOException {
    try {
      BasicFileAttributes own = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!own.isSymbolicLink()) {
        return own;
      }
      BasicFileAttributes target = Files.readAttributes(path, BasicFileAttributes.class);
      return target.isRegularFile() ? target : null;
    } catch (NoSuchFileException goneOrDangling) {
      return null;
    }
  }
}
