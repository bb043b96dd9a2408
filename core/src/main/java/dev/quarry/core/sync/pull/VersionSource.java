package dev.quarry.core.sync.pull;

import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.remote.TreeDiff;
import dev.quarry.core.sync.remote.VerifiedBlob;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Where a pull reads a version from: the session's content-addressed remote, or a version put together from another
 * store (a DVC remote's, {@code DvcPull}). Whatever the source, the pull writes the same way: the tree is checked
 * whole before anything is written, and every blob is verified against its digest before it becomes visible.
 */
public interface VersionSource {
  /** The source's URL, for the result. */
  String url();

  /** The top object of a version's root folder (its manifest, or a chunked folder's index), as the user named it. */
  TreeObject root(String version) throws IOException;

  /** The tree objects of a version's folders (manifests, chunks, indexes), each verified against its digest. */
  TreeDiff.Trees trees();

  /**
   * Writes a blob into a new file (created with {@code permissions}), verified against its digest: the file is
   * deleted unless it matches. Returns its bytes.
   */
  long blobToFile(Digest digest, Path file, Set<PosixFilePermission> permissions) throws IOException;

  /** Called when a pull failed: a source may forget what it assumed about the remote. */
  void failed() throws IOException;

  /** The session's own remote: refs and manifests by digest, blobs by {@link VerifiedBlob}. */
  static VersionSource of(SyncSession session) {
    return new VersionSource() {
      @Override
      public String url() {
        return session.remote().url();
      }

      @Override
      public TreeObject root(String version) throws IOException {
        return session.remote().resolveRoot(version);
      }

      @Override
      public TreeDiff.Trees trees() {
        return TreeDiff.Trees.of(session.remote());
      }

      @Override
      public long blobToFile(Digest digest, Path file, Set<PosixFilePermission> permissions) throws IOException {
        return VerifiedBlob.toFile(session.remote(), digest, file, permissions);
      }

      @Override
      public void failed() throws IOException {
        session.index().clear(); // a missing object may have been taken for present
      }
    };
  }
}
