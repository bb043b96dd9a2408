package dev.quarry.core.sync;

import dev.quarry.core.sync.cas.Ref;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.LocalTree;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.MissingObjects;
import dev.quarry.core.sync.remote.RemoteIndex;
import dev.quarry.core.sync.remote.VersionDiff;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The step status and push share: check the local index against the remote's gc generation, read the ref, walk the
 * remote version where it differs from the local tree, then look up what is still unknown.
 *
 * @param diff null when the ref does not exist or names the local tree itself
 */
public record RemoteComparison(Optional<Ref> ref, VersionDiff diff, MissingObjects missing, boolean indexKept) {

  /**
   * What a comparison reads from the remote before it needs the local tree: the gc generation, the ref, and (when
   * read ahead) the top tree object of the ref's version, else null.
   */
  public record RemoteHead(String generation, Optional<Ref> ref, TreeObject root) {
    public static RemoteHead read(CasRemote remote, String refName) throws IOException {
      return new RemoteHead(remote.gcGeneration(), remote.readRef(refName), null);
    }

    /**
     * With the version's top tree object too: for a caller that reads this while the folder is scanned, so that
     * the comparison starts without a round trip (one GET more when the folder turns out to be that version). A
     * top object that cannot be read is left to the comparison, which reads it again if it needs it and says why.
     */
    public static RemoteHead readAhead(CasRemote remote, String refName) throws IOException {
      String generation = remote.gcGeneration();
      Optional<Ref> ref = remote.readRef(refName);
      TreeObject root = null;
      if (ref.isPresent()) {
        try {
          root = remote.fetchObject(ref.get().rootDigest());
        } catch (IOException | RuntimeException e) {
          root = null; // not needed when the folder is that version; else read again, and its error reported, there
        }
      }
      return new RemoteHead(generation, ref, root);
    }
  }

  /** {@code forUpload}: see {@link MissingObjects#find}. */
  public static RemoteComparison of(SyncSession session, LocalTree tree, String refName, boolean forUpload)
      throws IOException {
    return of(session, tree, RemoteHead.read(session.remote(), refName), forUpload);
  }

  /** With the generation and ref already read, for example while the folder was being scanned. */
  public static RemoteComparison of(SyncSession session, LocalTree tree, RemoteHead head, boolean forUpload)
      throws IOException {
    CasRemote remote = session.remote();
    RemoteIndex index = session.index();
    boolean kept = index.validate(head.generation());
    Optional<Ref> ref = head.ref();
    if (ref.isPresent() && ref.get().rootDigest().equals(tree.root())) {
      index.addComplete(Set.of(tree.root()));
      return new RemoteComparison(ref, null, new MissingObjects(List.of(), Set.of(), List.of()), kept);
    }
    VersionDiff diff = null;
    if (ref.isPresent()) {
      TreeObject root = head.root() != null ? head.root() : remote.fetchObject(ref.get().rootDigest());
      diff = VersionDiff.compare(remote, root, tree.top());
      index.addComplete(diff.trustedTrees());
    }
    MissingObjects missing = MissingObjects.find(tree, remote, index, diff != null ? diff.trustedTrees() : Set.of(),
        diff != null ? diff.trustedBlobs() : Set.of(), forUpload);
    return new RemoteComparison(ref, diff, missing, kept);
  }

  public Amount missingLocal() {
    if (ref.isEmpty() || diff == null) {
      return Amount.NONE;
    }
    return new Amount(diff.missingLocalFiles(), diff.missingLocalBytes());
  }

  public Amount missingRemote() {
    return new Amount(missing.missingTrees().size() + missing.missingBlobs().size(), missing.missingBytes());
  }
}
