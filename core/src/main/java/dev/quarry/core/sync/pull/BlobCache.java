package dev.quarry.core.sync.pull;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.StateDatabase;
import dev.quarry.core.sync.local.StateDatabase.FileState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A local folder of verified blobs ({@code <cache>/<h0h1>/<hex>}) that pulls hard-link files from. Files pulled as
 * hard links share the cached inode, so a cached blob is trusted only while its (inode, mtime, size) match what the
 * state database recorded when it was verified; otherwise it is hashed again, and dropped if it no longer matches.
 */
final class BlobCache {
  private final Path folder;
  private final StateDatabase state;
  private final Map<String, FileState> known;
  private final Map<String, FileState> verified = new ConcurrentHashMap<>();

  BlobCache(Path folder, StateDatabase state) throws IOException {
    this.folder = folder.toAbsolutePath().normalize();
    this.state = state;
    Files.createDirectories(tempFolder());
    this.known = state.load(this.folder);
  }

  Path path(Digest digest) {
    return folder.resolve(digest.hex().substring(0, 2)).resolve(digest.hex());
  }

  Path tempFolder() {
    return folder.resolve("tmp");
  }

  /** Whether the cache holds this blob intact. */
  boolean has(Digest digest) throws IOException {
    Path path = path(digest);
    FileIdentity identity;
    try {
      identity = FileIdentity.of(path);
    } catch (NoSuchFileException e) {
      return false;
    }
    if (!identity.isRegularFile() || identity.size() != digest.size()) {
      Files.deleteIfExists(path);
      return false;
    }
    FileState recorded = known.get(path.toString());
    if (recorded != null && recorded.matches(identity.inode(), identity.mtimeNanos(), identity.size())
        && recorded.digest().equals(digest)) {
      return true;
    }
    if (Digest.ofFile(path).equals(digest)) {
      verified.put(path.toString(), new FileState(identity.inode(), identity.mtimeNanos(), identity.size(), digest));
      return true;
    }
    Files.deleteIfExists(path);
    return false;
  }

  /** Moves a verified download into the cache; returns its cache path. */
  Path adopt(Digest digest, Path download) throws IOException {
    Path path = path(digest);
    Files.createDirectories(path.getParent());
    Files.move(download, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    FileIdentity identity = FileIdentity.of(path);
    verified.put(path.toString(), new FileState(identity.inode(), identity.mtimeNanos(), identity.size(), digest));
    return path;
  }

  void recordState() throws IOException {
    state.record(verified);
  }
}
