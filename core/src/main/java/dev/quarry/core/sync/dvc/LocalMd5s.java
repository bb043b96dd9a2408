package dev.quarry.core.sync.dvc;

import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.StateDatabase;
import dev.quarry.core.sync.local.StateDatabase.Md5State;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MD5s of a folder's files, as DVC names content, cached in the state database by (inode, mtime, size) the way
 * its SHA-256 digests are: a file whose identity is unchanged is not read again. Safe to use from many threads.
 */
final class LocalMd5s {
  private final StateDatabase state;
  private final Map<String, Md5State> known;
  private final Map<String, Md5State> found = new ConcurrentHashMap<>();
  private long hashed;

  LocalMd5s(StateDatabase state, Path root) throws IOException {
    this.state = state;
    this.known = state.loadMd5s(root);
  }

  /** The MD5 of a regular file (lstat-ed as {@code identity}): from the cache, or read and hashed. */
  String of(Path file, FileIdentity identity) throws IOException {
    Md5State cached = known.get(file.toString());
    if (cached != null && cached.matches(identity)) {
      return cached.md5();
    }
    String md5 = DvcRemote.md5Of(file);
    record(file, identity, md5);
    synchronized (this) {
      hashed++;
    }
    return md5;
  }

  /** Records what a file holds, known without reading it (a pull just wrote it). */
  void record(Path file, FileIdentity identity, String md5) {
    found.put(file.toString(), new Md5State(identity.inode(), identity.mtimeNanos(), identity.size(), md5));
  }

  synchronized long hashed() {
    return hashed;
  }

  /** Writes what was found into the state database, in one transaction. */
  void save() throws IOException {
    state.recordMd5s(found);
    known.putAll(found);
    found.clear();
  }
}
