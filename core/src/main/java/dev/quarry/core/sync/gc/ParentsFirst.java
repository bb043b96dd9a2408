package dev.quarry.core.sync.gc;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.MissingObjectException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The unreachable manifests in waves of deletion, parents before children: a manifest is in a wave only after every
 * unreachable manifest naming it is in an earlier one. Gc deletes one wave after the other, so a gc killed at any
 * point leaves no manifest whose subtree it began to delete, and "a present manifest proves its whole subtree present"
 * holds across the kill. Each manifest, chunk and chunk index is read (bounded and verified by
 * {@link CasRemote#fetchObject}) to learn what it names.
 */
final class ParentsFirst {
  private ParentsFirst() {}

  static List<List<ObjectInfo>> waves(CasRemote remote, List<ObjectInfo> manifests) throws IOException {
    Map<String, ObjectInfo> byHex = new HashMap<>();
    manifests.forEach(object -> byHex.put(CasLayout.hexOf(object.key()), object));
    Map<String, Set<String>> children = new ConcurrentHashMap<>();
    try {
      Map<ObjectInfo, Exception> failed = InFlight.forEach(manifests, remote.inFlight(), object -> {
        String hex = CasLayout.hexOf(object.key());
        Set<String> named = ConcurrentHashMap.newKeySet();
        for (Digest tree : remote.fetchObject(new Digest(hex, object.size())).trees()) {
          if (byHex.containsKey(tree.hex())) {
            named.add(tree.hex());
          }
        }
        children.put(hex, named);
      });
      for (Exception e : failed.values()) {
        if (!(e instanceof MissingObjectException)) {
          throw new IOException("Cannot collect garbage: " + e.getMessage() + " (gc reads every unreachable"
              + " manifest to delete parents before children); nothing was deleted", e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted while reading unreachable manifests");
    }
    Map<String, Integer> namers = new HashMap<>();
    children.values().forEach(named -> named.forEach(child -> namers.merge(child, 1, Integer::sum)));
    List<List<ObjectInfo>> waves = new ArrayList<>();
    List<String> wave = children.keySet().stream().filter(hex -> !namers.containsKey(hex)).sorted().toList();
    while (!wave.isEmpty()) {
      waves.add(wave.stream().map(byHex::get).toList());
      List<String> next = new ArrayList<>();
      for (String parent : wave) {
        for (String child : children.get(parent)) {
          if (namers.merge(child, -1, Integer::sum) == 0) {
            next.add(child);
          }
        }
      }
      next.sort(null);
      wave = next;
    }
    return waves;
  }
}
