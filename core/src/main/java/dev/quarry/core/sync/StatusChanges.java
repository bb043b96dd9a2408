package dev.quarry.core.sync;

import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.LocalPaths;
import dev.quarry.core.sync.local.LocalTree;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@code sync status} names, path by path: what the folder added, modified and deleted since the ref's version
 * (a folder deleted whole is one path ending in '/'), and the files whose content the remote lacks. All four come
 * from what the comparison read anyway: naming them costs no request.
 *
 * @param added files and links in the folder that the version lacks (every one when the ref does not exist)
 * @param modified files and links in both, with another content or target
 * @param deleted files, links and folders of the version that the folder lacks
 * @param notOnRemote files of the folder whose content the remote lacks (what a push would upload)
 */
public record StatusChanges(PathList added, PathList modified, PathList deleted, PathList notOnRemote) {
  public static StatusChanges of(LocalTree tree, RemoteComparison comparison) {
    List<String> added = new ArrayList<>();
    List<String> modified = List.of();
    List<String> deleted = List.of();
    if (comparison.ref().isEmpty()) {
      LocalPaths.list(tree.top(), "", added);
      if (added.equals(List.of(""))) {
        added = List.of(); // an empty folder: nothing to name
      }
    } else if (comparison.diff() != null) {
      added = comparison.diff().added();
      modified = comparison.diff().modified();
      deleted = comparison.diff().deleted();
    }
    Set<Digest> missingTrees = comparison.missing().missingTrees().stream().map(TreeObject::digest)
        .collect(Collectors.toSet());
    List<String> notOnRemote = LocalPaths.withContent(tree.top(), missingTrees, comparison.missing().missingBlobs());
    return new StatusChanges(PathList.of(added), PathList.of(modified), PathList.of(deleted),
        PathList.of(notOnRemote));
  }

  /** Whether the folder differs from the version or the remote lacks some of it: what --exit-code reports. */
  public boolean any() {
    return !added.isEmpty() || !modified.isEmpty() || !deleted.isEmpty() || !notOnRemote.isEmpty();
  }

  /** The same counts, with a short sample of each list: {@link PathList#sample}. */
  public StatusChanges sample(int limit, int maxBytes) {
    return new StatusChanges(added.sample(limit, maxBytes), modified.sample(limit, maxBytes),
        deleted.sample(limit, maxBytes), notOnRemote.sample(limit, maxBytes));
  }
}
