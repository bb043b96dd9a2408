package dev.quarry.core.sort.plan;

import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A job's splitters, drawn once and shared through scratch, as TeraSort's split file: extract index 0 draws the
 * sample ({@link KeySample}) and stores the splitters ({@link Scratch#splitters}); every other index waits for them,
 * polling, and uses them. When they do not come within the wait (index 0 not scheduled yet, or killed), the indexes
 * waiting claim the drawing with a conditional write ({@link ObjectStore#putIfAbsent} of
 * {@link Scratch#splittersClaim}, the round after the last claimed): the one whose claim lands draws the sample and
 * stores the splitters, the others wait one more wait for them, then claim the next round (the claimant may have
 * died, or draw slower than a wait), and so on. So a late index 0 costs one more draw a wait, not one per index (each
 * up to 256 MiB of ranged reads of the input). Every draw finds the same splitters (the sample is deterministic), and
 * the done markers' SHA-256 of them still make partition and plan refuse a mix, so a store that ignores the condition
 * only draws more. Every index, 0 too, first uses splitters already stored (a rerun uses what the others used).
 */
public final class SharedSplitters {
  /** How long an index other than 0 waits for index 0's splitters, or a claimant's, before claiming the draw. */
  public static final Duration DEFAULT_WAIT = Duration.ofMinutes(1);
  private static final long FIRST_POLL_MILLIS = 100;
  private static final long LAST_POLL_MILLIS = 2_000;

  /** The stored document: the number of partitions and the keys (range keys, content splitters) that start 1, 2, ... */
  record Splitters(int partitions, List<String> splitters) {}

  /** A claim of drawing the splitters, by extract index {@code index} in its round. */
  record Claim(int index, int round) {}

  /** What a message about a stored object that is not the job's splitters says to do. */
  private static final String REMEDY = "delete it and run extract again";

  /** Draws the splitters from the sample. */
  @FunctionalInterface
  public interface Draw {
    List<String> splitters() throws IOException;
  }

  private final ObjectStore store;
  private final Scratch scratch;
  private final int index;
  private final Duration wait;

  /** The splitters extract index {@code index} uses, shared under {@code scratch} in {@code store}. */
  public SharedSplitters(ObjectStore store, Scratch scratch, int index, Duration wait) {
    this.store = store;
    this.scratch = scratch;
    this.index = index;
    this.wait = wait;
  }

  /**
   * The splitters for {@code partitions}: those stored, once {@code check} (which throws IllegalArgumentException
   * saying why they are not splitters of the job's order) accepts them; else drawn, by index 0 at once and by another
   * index when its claim of a round lands, and stored.
   *
   * @throws IOException "Cannot read ...: ..." when the stored object is not valid splitters for the job
   */
  public List<String> of(int partitions, Draw draw, Consumer<List<String>> check)
      throws IOException, InterruptedException {
    String key = scratch.splitters(partitions);
    Optional<List<String>> stored = awaitStored(key, partitions, check, index == 0 ? Duration.ZERO : wait);
    if (stored.isPresent()) {
      return stored.get();
    }
    if (index == 0) {
      return drawn(key, partitions, draw);
    }
    // Claims of earlier rounds (an index that started before this one, or claimants that died) are not walked one
    // wait at a time: the newest gets one wait for its splitters, then the round after it is claimed.
    int round = lastClaimedRound(partitions);
    if (round > 0) {
      stored = awaitStored(key, partitions, check, wait);
    }
    while (stored.isEmpty()) {
      round++;
      if (StoredJson.writeIfAbsent(store, scratch.splittersClaim(partitions, round), new Claim(index, round))) {
        return drawn(key, partitions, draw);
      }
      stored = awaitStored(key, partitions, check, wait);
    }
    return stored.get();
  }

  /** Draws the splitters and stores them, unless drawn and stored meanwhile (the same bytes). */
  private List<String> drawn(String key, int partitions, Draw draw) throws IOException {
    List<String> splitters = draw.splitters();
    StoredJson.writeIfAbsent(store, key, new Splitters(partitions, splitters));
    return splitters;
  }

  /** The highest round of the claims stored for {@code partitions}, 0 for none. */
  private int lastClaimedRound(int partitions) throws IOException {
    String claims = scratch.splittersClaims(partitions);
    try (var listed = store.listAll(claims)) {
      return listed.map(claim -> claim.key().substring(claims.length()))
          .filter(rest -> rest.matches("[1-9][0-9]{0,8}\\.json"))
          .mapToInt(rest -> Integer.parseInt(rest.substring(0, rest.length() - ".json".length())))
          .max().orElse(0);
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause(); // a page of the listing that failed
    }
  }

  /** The stored splitters, polled for until they come or {@code wait} is over. */
  private Optional<List<String>> awaitStored(String key, int partitions, Consumer<List<String>> check, Duration wait)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    long pause = FIRST_POLL_MILLIS;
    for (Optional<List<String>> stored = read(key, partitions, check); ; stored = read(key, partitions, check)) {
      long left = deadline - System.nanoTime();
      if (stored.isPresent() || left <= 0) {
        return stored;
      }
      Thread.sleep(Math.min(pause, Math.max(1, left / 1_000_000)));
      pause = Math.min(LAST_POLL_MILLIS, pause * 2);
    }
  }

  private Optional<List<String>> read(String key, int partitions, Consumer<List<String>> check) throws IOException {
    Splitters stored;
    try {
      stored = StoredJson.read(store, key, Splitters.class, REMEDY);
    } catch (NoSuchObjectException e) {
      return Optional.empty();
    }
    String problem = null;
    if (stored.partitions() != partitions || stored.splitters() == null) {
      problem = "it is not the splitters of " + partitions + " partitions";
    } else if (stored.splitters().size() >= partitions) {
      problem = "it holds " + stored.splitters().size() + " splitters (must be at most " + (partitions - 1) + ")";
    } else if (stored.splitters().contains(null)) {
      problem = "a splitter is not a string";
    } else {
      try {
        check.accept(stored.splitters());
      } catch (IllegalArgumentException e) {
        problem = e.getMessage();
      }
    }
    if (problem != null) {
      throw new IOException("Cannot read " + store.url(key) + ": " + problem + " (it was changed or is corrupt; "
          + REMEDY + ")");
    }
    return Optional.of(stored.splitters());
  }
}
