package dev.quarry.core.sync.pull;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.local.FileClock;
import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.StateDatabase;
import dev.quarry.core.sync.local.StateDatabase.FileState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A local folder of verified blobs ({@code <cache>/<h0h1>/<hex>}) that pulls hard-link files from. The folders it
 * creates are private (0700), and a blob is read-only ({@link #BLOB_MODE}): only a file whose mode is that is a hard
 * link to it, so that no write through one name reaches another and no file's mode is exposed by the cache's (a
 * writable or private file is a copy). Files pulled as hard links share the cached inode, so a cached blob is trusted only while its (inode, mtime, size) match what the
 * state database recorded when it was verified; otherwise it is hashed again, and dropped if it no longer matches.
 */
final class BlobCache {
  /** The mode of every cached blob, and so of every file linked to one: read-only, without a write bit. */
  static final int BLOB_MODE = 0444;
  private static final Set<PosixFilePermission> PRIVATE_FOLDER = PosixFilePermissions.fromString("rwx------");

  private final Path folder;
  private final StateDatabase state;
  private final Map<String, FileState> known;
  private final Map<String, FileState> verified = new ConcurrentHashMap<>();
  /** Taken before the cache's blobs are looked at: rows of blobs hashed where they are are stamped by it. */
  private final FileClock.Horizon reading;

  BlobCache(Path folder, StateDatabase state) throws IOException {
    this.folder = folder.toAbsolutePath().normalize();
    this.state = state;
    privateFolder(this.folder);
    privateFolder(tempFolder());
    this.known = state.load(this.folder);
    this.reading = state.clock().beforeLooking(this.folder);
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
      verified.put(path.toString(), reading.toRecord(new FileState(identity.inode(), identity.mtimeNanos(),
          identity.size(), digest)));
      return true;
    }
    Files.deleteIfExists(path);
    return false;
  }

  /** Moves a verified download into the cache; returns its cache path. */
  Path adopt(Digest digest, Path download) throws IOException {
    Path path = path(digest);
    privateFolder(path.getParent());
    Files.setPosixFilePermissions(download, FileIdentity.permissionSet(BLOB_MODE));
    Files.move(download, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    FileIdentity identity = FileIdentity.of(path);
    verified.put(path.toString(), new FileState(identity.inode(), identity.mtimeNanos(), identity.size(), digest));
    return path;
  }

  /** Creates a folder of the cache 0700, or makes a folder of it (not the cache itself, the user's) 0700. */
  private void privateFolder(Path path) throws IOException {
    if (!Files.isDirectory(path)) {
      Files.createDirectories(path, PosixFilePermissions.asFileAttribute(PRIVATE_FOLDER));
      Files.setPosixFilePermissions(path, PRIVATE_FOLDER); // whatever the umask took
    } else if (!path.equals(folder) && !Files.getPosixFilePermissions(path).equals(PRIVATE_FOLDER)) {
      Files.setPosixFilePermissions(path, PRIVATE_FOLDER);
    }
  }

  void recordState() throws IOException {
    state.record(verified);
  }
}
