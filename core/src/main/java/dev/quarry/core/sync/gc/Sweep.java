package dev.quarry.core.sync.gc;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.ListPage;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.CasLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The unmarked objects of one key space, found by listing its 256 fan-out folders in parallel: those older than the
 * cutoff may go; younger ones ({@code kept}) are kept, since a push may be about to reference them.
 */
record Sweep(List<ObjectInfo> deletable, long deletableBytes, List<ObjectInfo> kept, long young, long youngBytes) {

  static Sweep find(ObjectStore store, String space, Set<String> marked, Instant cutoff, int inFlight)
      throws IOException {
    List<ObjectInfo> deletable = Collections.synchronizedList(new ArrayList<>());
    List<ObjectInfo> kept = Collections.synchronizedList(new ArrayList<>());
    // A small space is listed in one page; a large one by its 256 fan-out folders in parallel.
    ListPage first = store.list(space, null, 1000);
    List<String> folders = first.nextStartAfter() == null ? List.of()
        : IntStream.range(0, 256).mapToObj(i -> space + String.format("%02x/", i)).toList();
    Stream<ObjectInfo> small = first.nextStartAfter() == null ? first.objects().stream() : Stream.empty();
    try {
      small.forEach(object -> classify(object, marked, cutoff, deletable, kept));
      InFlight.all(folders, inFlight, folder -> store.listAll(folder).forEach(object -> {
        classify(object, marked, cutoff, deletable, kept);
      }));
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    return of(List.copyOf(deletable), List.copyOf(kept));
  }

  private static Sweep of(List<ObjectInfo> deletable, List<ObjectInfo> kept) {
    return new Sweep(deletable, deletable.stream().mapToLong(ObjectInfo::size).sum(), kept, kept.size(),
        kept.stream().mapToLong(ObjectInfo::size).sum());
  }

  /** This sweep without the objects marked since it was found. */
  Sweep without(Set<String> marked) {
    return of(deletable.stream().filter(object -> !marked.contains(CasLayout.hexOf(object.key()))).toList(), kept);
  }

  private static void classify(ObjectInfo object, Set<String> marked, Instant cutoff, List<ObjectInfo> deletable,
      List<ObjectInfo> kept) {
    String hex = CasLayout.hexOf(object.key());
    if (hex == null || marked.contains(hex)) {
      return;
    }
    if (object.lastModified().isBefore(cutoff)) {
      deletable.add(object);
    } else {
      kept.add(object);
    }
  }
}
