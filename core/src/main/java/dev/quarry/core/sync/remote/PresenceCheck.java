package dev.quarry.core.sync.remote;

import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.store.ListPage;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.CasLayout;
import dev.quarry.core.sync.cas.Digest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds which of a set of digests a key space ({@code blobs/} or {@code trees/}) holds, in about
 * min(N unknown, R objects / 1000) requests. One listing page from the start of the space sizes it: keys are
 * uniformly distributed hashes, so the last key of the first 1000 tells what fraction of the space they cover. Then
 * either one HEAD per unknown digest, or listing pages that each start at an unknown key and settle every unknown key
 * up to the page's last key; both with many requests in flight. An object whose size differs from its digest's counts
 * as missing, so a push overwrites it.
 */
public final class PresenceCheck {
  static final int PAGE = 1000;
  /**
   * What one LIST page costs in HEADs. AWS prices a LIST 12.5 times a HEAD, and servers work far harder for it: on
   * MinIO here a 1000-key page with a start-after takes about 30 times a HEAD's time. So listing wins only where it
   * saves many requests, which a big lookup on a big remote still does (a full push of 100k files).
   */
  static final int LIST_PAGE_COST = 10;
  /** Digests the first page must settle before their present fraction is trusted to stand for the rest. */
  static final int MIN_SAMPLE = 32;

  /** The digests found present, and how. */
  public record Outcome(Set<Digest> present, Strategy strategy) {}

  private final ObjectStore store;
  private final int inFlight;

  public PresenceCheck(ObjectStore store, int inFlight) {
    this.store = store;
    this.inFlight = Math.max(1, inFlight);
  }

  /** {@code space}: the key prefix of the digests' fan-out folders, such as {@code cas/blobs/}. */
  public Outcome check(String space, Set<Digest> unknown) throws IOException {
    return check(space, unknown, false);
  }

  /**
   * Like {@link #check(String, Set)}, but for a writer that may upload what is already there: when the digests the
   * first listing page settled (with HEADs of a few more when it settled too few) are a fair sample and almost none of
   * them are present, the rest are taken as missing without a lookup. Uploading a present blob again is harmless in a content-addressed store, and for a push into a
   * remote that lacks nearly everything, every lookup request would be wasted.
   */
  public Outcome check(String space, Set<Digest> unknown, boolean mayAssumeMissing) throws IOException {
    Set<Digest> present = ConcurrentHashMap.newKeySet();
    List<Digest> sorted = unknown.stream().filter(d -> !d.isEmpty()).sorted().toList();
    unknown.stream().filter(Digest::isEmpty).forEach(present::add);
    if (sorted.isEmpty()) {
      return new Outcome(present, Strategy.none("nothing to look up"));
    }
    if (sorted.size() <= LIST_PAGE_COST) { // fewer HEADs than a page costs, in one round trip
      head(space, sorted, present);
      return new Outcome(present, new Strategy("head", sorted.size() == 1 ? "1 object to look up"
          : sorted.size() + " objects to look up, fewer than a listing page costs in HEADs (" + LIST_PAGE_COST + ")"));
    }
    ListPage first = store.list(space, null, PAGE);
    int settled = settle(space, sorted, 0, sorted.size(), first, present);
    List<Digest> rest = sorted.subList(settled, sorted.size());
    if (rest.isEmpty()) {
      return new Outcome(present, new Strategy("list", String.format(Locale.ROOT,
          "%d objects to look up; the space's first listing page (%d objects) covered them all", sorted.size(),
          first.objects().size())));
    }
    long sampled = settled;
    long sampledPresent = sorted.subList(0, settled).stream().filter(present::contains).count();
    String sampledBy = "the first listing page";
    if (mayAssumeMissing && sampled < MIN_SAMPLE && rest.size() > 2 * MIN_SAMPLE) {
      // A few new files in a big remote: the page settles too few to judge. HEADs of digests spread over the rest
      // (uniform hashes: a stride is a fair sample) judge in one round trip what would take a HEAD each or many pages.
      List<Digest> sample = spread(rest, (int) (MIN_SAMPLE - sampled));
      head(space, sample, present);
      sampled += sample.size();
      sampledPresent += sample.stream().filter(present::contains).count();
      Set<Digest> headed = new HashSet<>(sample);
      rest = rest.stream().filter(digest -> !headed.contains(digest)).toList();
      sampledBy = "the first listing page and a sample of HEADs";
    }
    if (mayAssumeMissing && sampled >= MIN_SAMPLE && sampledPresent * 20 < sampled) {
      return new Outcome(present, new Strategy("assume-missing", String.format(Locale.ROOT, "%d objects to look up;"
          + " %s settled %d of them and found %d present, so the other %d are uploaded without a lookup",
          sorted.size(), sampledBy, sampled, sampledPresent, rest.size())));
    }
    double estimate = estimateSize(first);
    long pages = pagesToCover(rest, estimate);
    String numbers = String.format(Locale.ROOT, "%d objects to look up; about %.0f objects in %s (from one listing"
        + " page); listing would take about %d pages, costing %d HEADs each", rest.size(), estimate, space, pages,
        LIST_PAGE_COST);
    if (pages * LIST_PAGE_COST < rest.size()) {
      listRanges(space, rest, pages, present);
      return new Outcome(present, new Strategy("list", numbers + ", less than " + rest.size() + " HEAD requests"));
    }
    head(space, rest, present);
    return new Outcome(present, new Strategy("head", numbers + ", no less than " + rest.size() + " HEAD requests"));
  }

  private void head(String space, List<Digest> digests, Set<Digest> present) throws IOException {
    InFlight.all(digests, inFlight, digest -> {
      var info = store.head(CasLayout.keyIn(space, digest));
      if (info.isPresent() && info.get().size() == digest.size()) {
        present.add(digest);
      }
    });
  }

  /** Lists from each group's next unsettled key until the group is settled; groups run in parallel. */
  private void listRanges(String space, List<Digest> sorted, long pages, Set<Digest> present) throws IOException {
    int groups = (int) Math.max(1, Math.min(Math.min(inFlight, sorted.size()), pages));
    List<int[]> ranges = new ArrayList<>(groups);
    for (int g = 0; g < groups; g++) {
      ranges.add(new int[] {(int) ((long) sorted.size() * g / groups), (int) ((long) sorted.size() * (g + 1) / groups)});
    }
    InFlight.all(ranges, inFlight, range -> {
      int next = range[0];
      while (next < range[1]) {
        String key = CasLayout.keyIn(space, sorted.get(next));
        ListPage page = store.list(space, justBefore(key), PAGE);
        next = settle(space, sorted, next, range[1], page, present);
      }
    });
  }

  /**
   * Marks the digests from {@code from} that {@code page} settles: all of them when it was the last page, else those
   * up to its last key. Returns the index of the first digest left unsettled.
   */
  private static int settle(String space, List<Digest> sorted, int from, int to, ListPage page, Set<Digest> present) {
    Map<String, Long> sizes = new HashMap<>(page.objects().size() * 2);
    for (ObjectInfo object : page.objects()) {
      sizes.put(object.key(), object.size());
    }
    boolean lastPage = page.nextStartAfter() == null;
    String lastKey = page.objects().isEmpty() ? null : page.objects().getLast().key();
    int next = from;
    while (next < to) {
      String key = CasLayout.keyIn(space, sorted.get(next));
      if (!lastPage && (lastKey == null || key.compareTo(lastKey) > 0)) {
        break;
      }
      Long size = sizes.get(key);
      if (size != null && size == sorted.get(next).size()) {
        present.add(sorted.get(next));
      }
      next++;
    }
    // A page always settles at least the key it started at; guards against a store returning an empty truncated page.
    return next == from && from < to ? from + 1 : next;
  }

  /** {@code count} of the digests, evenly spaced over them. */
  private static List<Digest> spread(List<Digest> digests, int count) {
    List<Digest> sample = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      sample.add(digests.get((int) ((long) digests.size() * i / count)));
    }
    return sample;
  }

  /** Objects in the space, from how far into the uniformly distributed key space its first full page reaches. */
  static double estimateSize(ListPage first) {
    List<ObjectInfo> objects = first.objects();
    for (int i = objects.size() - 1; i >= 0; i--) {
      String hex = CasLayout.hexOf(objects.get(i).key());
      if (hex != null) {
        double fraction = Long.parseUnsignedLong(hex.substring(0, 15), 16) / Math.pow(16, 15);
        return (i + 1) / Math.max(fraction, 1e-12);
      }
    }
    return (double) PAGE * 256;
  }

  /** Listing pages needed to settle these digests in a space of {@code estimate} objects. */
  static long pagesToCover(List<Digest> sorted, double estimate) {
    long pages = 0;
    double coveredUpTo = -1;
    for (Digest digest : sorted) {
      double position = Long.parseUnsignedLong(digest.hex().substring(0, 15), 16) / Math.pow(16, 15) * estimate;
      if (position > coveredUpTo) {
        pages++;
        coveredUpTo = position + PAGE;
      }
    }
    return pages;
  }

  /** A start-after that makes a listing begin with {@code key} itself: its last hex digit lowered by one. */
  static String justBefore(String key) {
    char last = key.charAt(key.length() - 1);
    return key.substring(0, key.length() - 1) + (char) (last - 1);
  }
}
