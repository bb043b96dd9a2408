package dev.quarry.core.sync.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Reads a folder through the public API: each entry lstat'ed relative to the open folder ({@link
 * SecureDirectoryStream}, fstatat: the kernel resolves one name rather than the whole path) where the JDK offers it.
 * NIO makes a few objects per entry (paths, an attribute view, the file key's text, the permission set).
 */
final class PublicFolderReader implements FolderReader {
  @Override
  public Entries read(Path dir, Set<String> leftOut) throws IOException {
    List<Path> paths = new ArrayList<>();
    List<String> names = new ArrayList<>();
    FileIdentity[] identities;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path path : entries) {
        String name = path.getFileName().toString();
        if (!leftOut.contains(name)) {
          paths.add(path);
          names.add(name);
        }
      }
      identities = new FileIdentity[paths.size()];
      IntStream indexes = IntStream.range(0, identities.length);
      (FolderReader.inParallel(identities.length) ? indexes.parallel() : indexes).forEach(i -> {
        try {
          identities[i] = lstat(entries, paths.get(i));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return new Entries(names.toArray(String[]::new), identities, paths.toArray(Path[]::new));
  }

  private static FileIdentity lstat(DirectoryStream<Path> folder, Path path) throws IOException {
    if (folder instanceof SecureDirectoryStream<Path> open) {
      PosixFileAttributeView view = open.getFileAttributeView(path.getFileName(), PosixFileAttributeView.class,
          LinkOption.NOFOLLOW_LINKS);
      if (view != null) {
        return FileIdentity.of(path, view.readAttributes());
      }
    }
    return FileIdentity.of(path);
  }
}
