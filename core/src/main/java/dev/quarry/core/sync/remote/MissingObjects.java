package dev.quarry.core.sync.remote;

import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.LocalTree;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What the remote lacks of a local tree. Walks the local tree top-down, one level at a time: a folder whose manifest
 * is known complete (from the remote version, the local index, or found present) is skipped with its whole subtree;
 * the others' manifests are looked up together, and the files of missing folders are looked up in one batch at the
 * end. So the cost follows what changed, not what exists. A chunked folder is walked the same way, object by object:
 * its index, then the chunks and indexes under it that are not known complete (those of the remote version are).
 * When the trees not known complete are few, with few files (a change or two, as a status usually finds), they are
 * looked up all at once instead, and those files with them (a status) or right after (a push): a round trip per
 * level saved for the few lookups that a present folder would have spared.
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
    Map<Digest, TreeObject> objects = TreeObject.byDigest(local.manifests().values());
    MissingObjects atOnce = atOnce(local.root(), objects, remote, index, trustedTrees, trustedBlobs, forUpload);
    return atOnce != null ? atOnce : levelByLevel(local.root(), objects, remote, index, trustedTrees, trustedBlobs,
        forUpload);
  }

  /** The most trees and files looked up all at once rather than a level of trees at a time. */
  static final int AT_ONCE = 2 * PresenceCheck.LIST_PAGE_COST;

  /**
   * Every tree under the root reached through trees not known complete, and their files not known present, looked
   * up together (trees and files at the same time) when they are at most {@link #AT_ONCE}; null when more. Then a
   * tree is missing when it and every tree above it are, as {@link #levelByLevel} finds.
   */
  private static MissingObjects atOnce(Digest root, Map<Digest, TreeObject> objects, CasRemote remote,
      RemoteIndex index, Set<Digest> trustedTrees, Set<Digest> trustedBlobs, boolean forUpload) throws IOException {
    Map<Digest, TreeObject> unknown = new LinkedHashMap<>();
    Set<Digest> unknownBlobs = new HashSet<>();
    ArrayDeque<Digest> next = new ArrayDeque<>(List.of(root));
    while (!next.isEmpty()) {
      Digest tree = next.poll();
      if (unknown.containsKey(tree) || trustedTrees.contains(tree) || index.isComplete(tree)) {
        continue;
      }
      TreeObject object = objects.get(tree);
      unknown.put(tree, object);
      next.addAll(object.trees());
      for (Digest blob : object.blobs()) {
        if (!blob.isEmpty() && !trustedBlobs.contains(blob)) {
          unknownBlobs.add(blob);
        }
      }
      if (unknown.size() + unknownBlobs.size() > AT_ONCE) {
        return null;
      }
    }
    if (unknown.isEmpty()) {
      return null; // nothing to look up: the level walk says so
    }
    PresenceCheck presence = remote.presence();
    CasLayout layout = remote.layout();
    // A status looks trees and files up at the same time; a push, trees first, as the gc protocol has it
    // (GcProtocolModel's steps are a push's requests in their order).
    CompletableFuture<PresenceCheck.Outcome> blobsLookup = unknownBlobs.isEmpty() || forUpload ? null
        : Futures.async(() -> presence.check(layout.space(CasLayout.BLOBS), unknownBlobs, false));
    PresenceCheck.Outcome trees = presence.check(layout.space(CasLayout.TREES), unknown.keySet());
    PresenceCheck.Outcome blobs = blobsLookup != null ? Futures.join(blobsLookup)
        : unknownBlobs.isEmpty() ? null : presence.check(layout.space(CasLayout.BLOBS), unknownBlobs, forUpload);
    index.addComplete(trees.present());
    List<TreeObject> missingTrees = new ArrayList<>();
    Set<Digest> missingBlobs = new HashSet<>();
    Set<Digest> visited = new HashSet<>();
    next.add(root);
    while (!next.isEmpty()) { // top-down: what is under a present tree is there too
      Digest tree = next.poll();
      if (!unknown.containsKey(tree) || !visited.add(tree) || trees.present().contains(tree)) {
        continue;
      }
      TreeObject object = unknown.get(tree);
      missingTrees.add(object);
      next.addAll(object.trees());
      for (Digest blob : object.blobs()) {
        if (unknownBlobs.contains(blob) && !blobs.present().contains(blob)) {
          missingBlobs.add(blob);
        }
      }
    }
    List<Lookup> lookups = new ArrayList<>(List.of(new Lookup(CasLayout.TREES, unknown.size(), trees.strategy())));
    if (blobs != null) {
      lookups.add(new Lookup(CasLayout.BLOBS, unknownBlobs.size(), blobs.strategy()));
    }
    return new MissingObjects(missingTrees, missingBlobs, lookups);
  }

  /** Top-down, one level at a time: a tree found present is not looked into. */
  private static MissingObjects levelByLevel(Digest root, Map<Digest, TreeObject> objects, CasRemote remote,
      RemoteIndex index, Set<Digest> trustedTrees, Set<Digest> trustedBlobs, boolean forUpload) throws IOException {
    PresenceCheck presence = remote.presence();
    CasLayout layout = remote.layout();
    List<TreeObject> missingTrees = new ArrayList<>();
    List<Lookup> lookups = new ArrayList<>();
    Set<Digest> unknownBlobs = new HashSet<>();
    Set<Digest> frontier = Set.of(root);
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
