package dev.quarry.core.sync;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.local.FileIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;

/** A folder as text per path (type, mode, content digest or link target), to compare trees in tests. */
final class TreeSnapshot {
  private TreeSnapshot() {}

  static SortedMap<String, String> of(Path root) throws IOException {
    SortedMap<String, String> snapshot = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.filter(p -> !p.equals(root)).toList()) {
        String relative = root.relativize(path).toString();
        if (relative.equals(SyncSession.DEFAULT_STATE_FOLDER)
            || relative.startsWith(SyncSession.DEFAULT_STATE_FOLDER + "/")) {
          continue;
        }
        FileIdentity identity = FileIdentity.of(path);
        String mode = String.format("%04o", identity.permissions());
        if (identity.isSymbolicLink()) {
          snapshot.put(relative, "link -> " + Files.readSymbolicLink(path));
        } else if (identity.isDirectory()) {
          snapshot.put(relative, "dir " + mode);
        } else {
          snapshot.put(relative, "file " + mode + " " + Digest.of(Files.readAllBytes(path)));
        }
      }
    }
    return snapshot;
  }
}
