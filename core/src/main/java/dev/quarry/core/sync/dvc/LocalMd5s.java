package dev.quarry.core.sync.dvc;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.local.FileClock;
import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.StateDatabase;
import dev.quarry.core.sync.local.StateDatabase.FileState;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MD5s of a folder's files, as DVC names content, with their SHA-256 digests: both from the file's state row
 * when its (inode, mtime, size) is unchanged and the row holds an MD5, else both hashed in one read of the file and
 * kept only if the file's identity is the same after the read as before (a file written meanwhile is not matched).
 * The MD5 lives in the state row, so it is forgotten with it. Safe to use from many threads.
 */
final class LocalMd5s {
  /** A file's content by both names: its MD5 and its SHA-256 digest. */
  record Hashes(String md5, Digest digest) {}

  private final StateDatabase state;
  private final Map<String, FileState> known;
  private final Map<String, FileState> found = new ConcurrentHashMap<>();
  private long hashed;
  /** Taken before any file is looked at: rows of files hashed here are stamped by it (FileClock). */
  private final FileClock.Horizon reading;

  LocalMd5s(StateDatabase state, Path root) throws IOException {
    this.state = state;
    this.known = state.load(root);
    this.reading = state.clock().beforeLooking(root);
  }

  /** The state rows under the folder, as loaded (MD5s found in this run aside). */
  Map<String, FileState> known() {
    return known;
  }

  /**
   * The hashes of a regular file (lstat-ed as {@code identity}): from its state row, or read once; null when the file
   * changed while it was read.
   */
  Hashes of(Path file, FileIdentity identity) throws IOException {
    FileState cached = known.get(file.toString());
    if (cached != null && cached.md5() != null && cached.matches(identity)) {
      return new Hashes(cached.md5(), cached.digest());
    }
    Hashes read = DvcRemote.hashesOf(file);
    synchronized (this) {
      hashed++;
    }
    if (!FileIdentity.of(file).equals(identity) || read.digest().size() != identity.size()) {
      return null;
    }
    // The same content as its row's stays synced, whatever its identity (a touch, or a row recorded untrusted).
    boolean synced = cached != null && cached.synced() && cached.digest().equals(read.digest());
    found.put(file.toString(), reading.toRecord(new FileState(identity.inode(), identity.mtimeNanos(),
        identity.size(), read.digest(), synced, read.md5())));
    return read;
  }

  /** Records what a file holds, known without reading it again (a pull just wrote it and recorded its row). */
  void record(Path file, FileState pulled, String md5) {
    found.put(file.toString(), new FileState(pulled.inode(), pulled.mtimeNanos(), pulled.size(), pulled.digest(),
        pulled.synced(), md5));
  }

  synchronized long hashed() {
    return hashed;
  }

  /** Writes what was found into the state database, in one transaction. */
  void save() throws IOException {
    state.record(found);
    known.putAll(found);
    found.clear();
  }
}
