package dev.quarry.core.sort.input;

import dev.quarry.core.archive.ShardFormat;
import dev.quarry.core.concurrent.Futures;
import dev.quarry.core.concurrent.InFlight;
import dev.quarry.core.sort.Scratch;
import dev.quarry.core.sort.StoredJson;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.ObjectStore;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job's input list as extract index 0 keeps it in scratch: pages of 4,096 input shards
 * ({@code Scratch#inputsPage}), then {@code inputs.json}, a summary of their number and formats (written last, the
 * list's commit point). So a partition step or the plan reads the summary alone, and a create worker the pages of the
 * inputs its records lie in, instead of every worker reading the whole list (41 MB at 409,600 inputs, a 100 TiB job of
 * 256 MiB shards; over the 64 MiB a scratch document may have past about 600,000).
 */
public final class StoredInputs {
  /** Input shards a page holds: about 400 KiB of JSON. */
  static final int PAGE_SIZE = 4096;

  /** What {@code inputs.json} holds: how many input shards, in pages of how many, and their formats (in order). */
  public record Summary(int count, int pageSize, List<ShardFormat> formats) {}

  private final ObjectStore store;
  private final Scratch scratch;
  private final Summary summary;
  /** Pages read or being read, by number: one reader fetches a page while the others wait for that page alone. */
  private final Map<Integer, CompletableFuture<List<InputShard>>> pages = new ConcurrentHashMap<>();
  /** Whether a shard on a page is one the job's input gives ({@link InputShards#givenBy}). */
  private final java.util.function.Predicate<InputShard> given;

  private StoredInputs(ObjectStore store, Scratch scratch, Summary summary,
      java.util.function.Predicate<InputShard> given) {
    this.store = store;
    this.scratch = scratch;
    this.summary = summary;
    this.given = given;
  }

  /** {@code inputs} held in memory, as one page (a local run keeps no list in scratch). */
  public static StoredInputs of(List<InputShard> inputs) {
    StoredInputs held = new StoredInputs(null, null, new Summary(inputs.size(), Math.max(1, inputs.size()),
        inputs.stream().map(InputShard::format).distinct().toList()), shard -> true);
    held.pages.put(0, CompletableFuture.completedFuture(inputs));
    return held;
  }

  /** Writes the pages of {@code inputs}, then the summary. */
  public static void write(ObjectStore store, Scratch scratch, List<InputShard> inputs) throws IOException {
    write(store, scratch, inputs, PAGE_SIZE);
  }

  static void write(ObjectStore store, Scratch scratch, List<InputShard> inputs, int pageSize) throws IOException {
    // The pages written at once (409,600 inputs are 100 pages).
    List<Integer> pageNumbers = InFlight.indexes((int) ((inputs.size() + pageSize - 1L) / pageSize));
    InFlight.all(pageNumbers, InFlight.SORT_REQUESTS, page -> StoredJson.write(store, scratch.inputsPage(page),
        inputs.subList(page * pageSize, (int) Math.min(inputs.size(), (page + 1L) * pageSize))
            .toArray(InputShard[]::new)));
    StoredJson.write(store, scratch.inputs(), new Summary(inputs.size(), pageSize,
        inputs.stream().map(InputShard::format).distinct().toList()));
  }

  /**
   * The summary extract index 0 wrote, or a clear error when it has not run; {@code action} as in "Cannot plan". The
   * pages read later are checked against {@code input}, the spec's.
   */
  public static StoredInputs read(ObjectStore store, Scratch scratch, String action, SortSpec.Input input)
      throws IOException {
    Summary summary = StoredJson.readIfPresent(store, scratch.inputs(), Summary.class).orElseThrow(() ->
        new IllegalStateException("Cannot " + action + ": no input list in scratch (run quarry sort extract"
            + " --index 0 first)"));
    if (summary.count() < 0 || summary.pageSize() <= 0 || summary.formats() == null
        || summary.formats().stream().anyMatch(java.util.Objects::isNull)) {
      throw changed("its summary counts " + summary.count() + " shards in pages of " + summary.pageSize());
    }
    return new StoredInputs(store, scratch, summary, InputShards.givenBy(input));
  }

  /** How many input shards the job has. */
  public int size() {
    return summary.count();
  }

  /** The formats of the input shards, each once, in the order of their first shard. */
  public List<ShardFormat> formats() {
    return summary.formats();
  }

  /**
   * Input shard {@code index}: only its page is read (once). Refuses an index outside the list, and a page that
   * does not hold its shards in their places.
   */
  public InputShard get(int index) throws IOException {
    if (index < 0 || index >= summary.count()) {
      throw new IllegalStateException("Cannot read a record of input shard " + index + ": the job has "
          + summary.count() + " input shards (the scratch was changed; clean it and sort again)");
    }
    int page = index / summary.pageSize();
    CompletableFuture<List<InputShard>> reading = new CompletableFuture<>();
    CompletableFuture<List<InputShard>> read = pages.putIfAbsent(page, reading);
    if (read == null) {
      read = reading;
      try {
        reading.complete(readPage(page));
      } catch (Throwable e) { // an Error too: a page left unfinished would hold its next readers forever
        pages.remove(page, reading); // the next caller reads it again
        reading.completeExceptionally(e);
      }
    }
    try {
      return read.join().get(index % summary.pageSize());
    } catch (java.util.concurrent.CompletionException e) {
      throw Futures.asIoException(e.getCause());
    }
  }

  /** Page {@code page}, refused unless it holds its shards in their places, each one the job's input gives. */
  private List<InputShard> readPage(int page) throws IOException {
    List<InputShard> shards = Arrays.asList(StoredJson.read(store, scratch.inputsPage(page), InputShard[].class));
    long first = (long) page * summary.pageSize();
    if (shards.size() != Math.min(summary.pageSize(), summary.count() - first)) {
      throw changed("page " + page + " holds " + shards.size() + " shards, not those from " + first);
    }
    for (int i = 0; i < shards.size(); i++) {
      InputShard shard = shards.get(i);
      if (shard == null || shard.index() != first + i || shard.url() == null || shard.format() == null) {
        throw changed("input shard " + (first + i) + " is not where page " + page + " has it");
      }
      if (!given.test(shard)) {
        throw changed("input shard " + (first + i) + " on page " + page + " is not one the job's input gives");
      }
    }
    return shards;
  }

  private static IllegalStateException changed(String what) {
    return new IllegalStateException("Cannot read the input list: " + what + " (the scratch was changed; clean it"
        + " and sort again)");
  }
}
