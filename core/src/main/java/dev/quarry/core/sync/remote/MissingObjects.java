package dev.quarry.core.sync.remote;

import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.LocalTree;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the remote lacks of a local tree. Walks the local tree top-down, one level at a time: a folder whose manifest
 * is known complete (from the remote version, the local index, or found present) is skipped with its whole subtree;
 * the others' manifests are looked up together, and the files of missing folders are looked up in one batch at the
 * end. So the cost follows what changed, not what exists. A chunked folder is walked the same way, object by object:
 * its index, then the chunks and indexes under it that are not known complete (those of the remote version are).
 *
 * @param missingTrees manifests, chunks and indexes to upload (a push orders them children first)
 * @param missingBlobs file contents to upload
 * @param lookups how each lookup was done, in order
 */
public record MissingObjects(List<TreeObject> missingTrees, Set<Digest> missingBlobs,
    List<Lookup> lookups) {

  /** One presence lookup: which space, how many digests, and the strategy. */
  public record Lookup(String space, int unknown, Strategy strategy) {}

  /**
   * {@code forUpload}: the caller will upload what is missing, so a blob lookup that samples almost nothing present
   * may stop there and count the rest as missing ({@link PresenceCheck#check(String, Set, boolean)}); status passes
   * false and gets exact counts.
   */
  public static MissingObjects find(LocalTree local, CasRemote remote, RemoteIndex index, Set<Digest> trustedTrees,
      Set<Digest> trustedBlobs, boolean forUpload) throws IOException {
    PresenceCheck presence = remote.presence();
    CasLayout layout = remote.layout();
    Map<Digest, TreeObject> objects = TreeObject.byDigest(local.manifests().values());
    List<TreeObject> missingTrees = new ArrayList<>();
    List<Lookup> lookups = new ArrayList<>();
    Set<Digest> unknownBlobs = new HashSet<>();
    Set<Digest> frontier = Set.of(local.root());
    Set<Digest> visited = new HashSet<>();
    while (!frontier.isEmpty()) {
      Map<Digest, TreeObject> unknown = new LinkedHashMap<>();
      for (Digest tree : frontier) {
        if (visited.add(tree) && !trustedTrees.contains(tree) && !index.isComplete(tree)) {
          unknown.put(tree, objects.get(tree));
        }
      }
      if (unknown.isEmpty()) {
        break;
      }
      PresenceCheck.Outcome found = presence.check(layout.space(CasLayout.TREES), unknown.keySet());
      lookups.add(new Lookup(CasLayout.TREES, unknown.size(), found.strategy()));
      index.addComplete(found.present());
      List<TreeObject> absent = new ArrayList<>();
      Set<Digest> next = new HashSet<>();
      for (TreeObject object : unknown.values()) {
        if (found.present().contains(object.digest())) {
          continue;
        }
        absent.add(object);
        next.addAll(object.trees());
        for (Digest blob : object.blobs()) {
          if (!blob.isEmpty() && !trustedBlobs.contains(blob)) {
            unknownBlobs.add(blob);
          }
        }
      }
      missingTrees.addAll(absent);
      frontier = next;
    }
    Set<Digest> missingBlobs = new HashSet<>(unknownBlobs);
    if (!unknownBlobs.isEmpty()) {
      PresenceCheck.Outcome found = presence.check(layout.space(CasLayout.BLOBS), unknownBlobs, forUpload);
      lookups.add(new Lookup(CasLayout.BLOBS, unknownBlobs.size(), found.strategy()));
      missingBlobs.removeAll(found.present());
    }
    return new MissingObjects(missingTrees, missingBlobs, lookups);
  }

  public long missingBytes() {
    long trees = missingTrees.stream().mapToLong(TreeObject::encodedLength).sum();
    return trees + missingBlobs.stream().mapToLong(Digest::size).sum();
  }

  /** The strategy people should see: that of the largest lookup. */
  public Strategy mainStrategy() {
    return lookups.stream().max(java.util.Comparator.comparingInt(Lookup::unknown)).map(Lookup::strategy)
        .orElse(Strategy.none("every tree was known complete on the remote"));
  }
}
