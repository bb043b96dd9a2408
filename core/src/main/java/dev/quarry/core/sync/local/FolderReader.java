package dev.quarry.core.sync.local;

import dev.quarry.core.sync.cas.Chunking;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * Lists a folder and lstats each of its entries, never following a link: the walk of a scan, where a status of a
 * million files spends its time. Two ways give the same entries: one through the JDK's internal Unix calls
 * ({@link JdkInternalFolderReader}: no objects per entry but the name and its identity), taken where the runtime
 * opens them to this code ({@code Add-Opens: java.base/sun.nio.fs} in the jar's manifest), and one through the public
 * API ({@link PublicFolderReader}) otherwise.
 */
sealed interface FolderReader permits JdkInternalFolderReader, PublicFolderReader {
  /**
   * What a folder holds, in the order it lists it: names with their lstat; {@code paths} are null, or hold for each
   * entry the path to open it by (made from the bytes the folder listed, which a name that is not UTF-8 does not give
   * back), null where {@code dir.resolve(name)} does.
   */
  record Entries(String[] names, FileIdentity[] identities, Path[] paths) {
    Path path(Path dir, int i) {
      return paths != null && paths[i] != null ? paths[i] : dir.resolve(names[i]);
    }
  }

  /** The entries of {@code dir} but those named in {@code leftOut}. */
  Entries read(Path dir, Set<String> leftOut) throws IOException;

  /** The internal reader where this runtime lets this code use it, else the public one. */
  static FolderReader forThisRuntime() {
    return JdkInternalFolderReader.available().<FolderReader>map(reader -> reader)
        .orElseGet(PublicFolderReader::new);
  }

  /**
   * Whether a folder's entries are lstat'ed on all cores of the caller's pool: in a folder of more entries than one
   * manifest holds (a flat folder of a million files is one folder, so its walk would otherwise be one core's).
   */
  static boolean inParallel(int entries) {
    return Chunking.isChunked(entries);
  }
}
