package dev.quarry.core.sort.plan;

import dev.quarry.core.policy.Problems;
import dev.quarry.core.sort.input.InputShard;
import dev.quarry.core.sort.order.ContentKeys;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.order.RecordOrders;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.core.sort.spec.OrderKind;
import dev.quarry.core.sort.spec.SortSpec;
import dev.quarry.core.store.ObjectStores;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Which partition a record goes to, so that the job's order is the partitions' orders one after the other and every
 * copy of a key meets in one partition. Shuffle and md5 split the 64-bit rank the order compares first (the XXHash or
 * the MD5's first 8 bytes) into equal ranges: no sample is needed, and a key's copies share their rank. Alphanumeric
 * splits keys at splitters ({@link KeySample}), partition 0 holding the first keys in the job's direction. A key map
 * splits its order, by template then key, at splitters of the same form ({@link #rangeKey}): a key's template is a
 * function of the key, so its copies meet too. Content and none order by a value copies of a key need not share (the
 * content key, the input position), so no range of theirs brings copies together: a record's bytes go to the
 * partition of its place in the order (content: splitters over content key then key; none: its input shard's share
 * of the input list), but its entry goes to the partition step of its key's hash range ({@link #stepOf}), which drops
 * the copies and hands each kept record to its partition.
 */
public final class Partitioner {
  /** The most partitions a job may have: scratch names a partition in five digits. */
  public static final int MAX_PARTITIONS = 99_999;
  private static final int TEMPLATE_DIGITS = 10;

  private final SortSpec.Order order;
  private final int partitions;
  private final List<String> splitters;
  /** The splitters as (template, key), each as {@link #templateOf} and {@link #keyOf} read it. */
  private final int[] splitterTemplates;
  private final String[] splitterKeys;
  /** A content order's splitters, as entries of (content key, key) compared by the order. */
  private final RecordEntry[] contentSplitters;
  private final Comparator<RecordEntry> contentOrder;
  private final Keymap keymap;
  private final int inputShards;
  private final boolean spreads;

  /**
   * {@code splitters}: for alphanumeric and key map orders, the range keys ({@link #rangeKey}) that start partitions
   * 1, 2, ... in increasing order; {@code keymap}: the job's key map, for a key map order.
   */
  public Partitioner(SortSpec.Order order, int partitions, List<String> splitters, Keymap keymap) {
    this(order, partitions, splitters, keymap, 0);
  }

  /** As above; {@code inputShards}: the length of the input list, which a none order splits into equal shares. */
  public Partitioner(SortSpec.Order order, int partitions, List<String> splitters, Keymap keymap, int inputShards) {
    checkCount(partitions);
    if (order.kind() == OrderKind.KEYMAP && keymap == null) {
      throw new IllegalArgumentException("Cannot partition a key map order without its key map");
    }
    this.order = order;
    this.partitions = partitions;
    this.splitters = usesSplitters(order) && splitters != null && splitters.size() < partitions
        ? List.copyOf(splitters) : List.of();
    this.splitterTemplates = this.splitters.stream().mapToInt(this::templateOf).toArray();
    this.splitterKeys = this.splitters.stream().map(this::keyOf).toArray(String[]::new);
    this.contentOrder = order.kind() == OrderKind.CONTENT ? RecordOrders.of(order) : null;
    this.contentSplitters = order.kind() == OrderKind.CONTENT
        ? this.splitters.stream().map(splitter -> contentSplitter(order, splitter)).toArray(RecordEntry[]::new)
        : new RecordEntry[0];
    this.keymap = keymap;
    this.inputShards = inputShards;
    this.spreads = spreads(order, partitions, splitters)
        || partitions > 1 && order.kind() == OrderKind.NONE && inputShards > 0;
  }

  /**
   * The partitioner of extract: its splitters, when the order uses them, those {@code shared} gives (drawn from the
   * sample, {@link KeySample}, once per job). The key map's malformed lines are the partition steps' to report: here
   * they are only parsed (an abort still fails).
   */
  public static Partitioner sampled(SortSpec spec, ObjectStores stores, List<InputShard> inputs, int partitions,
      SharedSplitters shared) throws IOException, InterruptedException {
    Keymap keymap = spec.order().kind() == OrderKind.KEYMAP ? Keymap.of(spec, stores, new Problems()) : null;
    List<String> splitters = usesSplitters(spec.order()) && partitions > 1 && !inputs.isEmpty()
        ? shared.of(partitions, () -> drawn(spec.order(), stores, inputs, partitions, keymap),
            stored -> checkSplitters(spec.order(), stored))
        : List.of();
    return new Partitioner(spec.order(), partitions, splitters, keymap, inputs.size());
  }

  /** The splitters the sample of {@code inputs} gives for an order that uses them. */
  static List<String> drawn(SortSpec.Order order, ObjectStores stores, List<InputShard> inputs, int partitions,
      Keymap keymap) throws IOException {
    return order.kind() == OrderKind.CONTENT
        ? KeySample.contentSplitters(inputs, stores, partitions, order).stream().map(Partitioner::contentSplitter)
            .toList()
        : KeySample.splitters(inputs, stores, partitions, rangeKeys(order, keymap));
  }

  /**
   * Refuses splitters that are not what the sample draws for {@code order}: strictly increasing range keys (by code
   * point; a key map's with its template's ten digits and ':'), or a content order's (content key, key) pairs
   * strictly increasing in the order's direction, each a content key of the order's type.
   *
   * @throws IllegalArgumentException saying which rule they break, without quoting them
   */
  static void checkSplitters(SortSpec.Order order, List<String> splitters) {
    if (order.kind() == OrderKind.CONTENT) {
      Comparator<RecordEntry> compare = RecordOrders.of(order);
      RecordEntry previous = null;
      for (String text : splitters) {
        RecordEntry splitter;
        try {
          splitter = contentSplitter(order, text);
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("a splitter is not a content key's length, ':', the content key and a"
              + " key");
        }
        if (previous != null && compare.compare(previous, splitter) >= 0) {
          throw new IllegalArgumentException("its splitters are not strictly increasing in the order");
        }
        previous = splitter;
      }
      return;
    }
    String previous = null;
    for (String splitter : splitters) {
      if (order.kind() == OrderKind.KEYMAP && !splitter.matches("(?s)[0-9]{" + TEMPLATE_DIGITS + "}:.*")) {
        throw new IllegalArgumentException("a splitter is not a template's index in " + TEMPLATE_DIGITS
            + " digits, ':' and a key");
      }
      if (previous != null && KeyOrder.compareKeys(previous, splitter) >= 0) {
        throw new IllegalArgumentException("its splitters are not strictly increasing");
      }
      previous = splitter;
    }
  }

  /** Refuses a number of partitions outside 1 to {@link #MAX_PARTITIONS}. */
  public static void checkCount(int partitions) {
    if (partitions < 1 || partitions > MAX_PARTITIONS) {
      throw new IllegalArgumentException("Invalid partition count: " + partitions + " (must be from 1 to "
          + MAX_PARTITIONS + ")");
    }
  }

  /** Whether the order's partitions are cut by keys (content keys then keys, for content) sampled from the input. */
  public static boolean usesSplitters(SortSpec.Order order) {
    return order.kind() == OrderKind.ALPHANUMERIC || order.kind() == OrderKind.KEYMAP
        || order.kind() == OrderKind.CONTENT;
  }

  /**
   * Whether the order's entries go to the partition step of their key's hash range rather than of their partition
   * (content and none, whose ranges do not bring a key's copies together), when records spread.
   */
  public static boolean stepsByKeyHash(SortSpec.Order order) {
    return order.kind() == OrderKind.CONTENT || order.kind() == OrderKind.NONE;
  }

  /** Whether records of {@code order} split by these splitters spread over the partitions. */
  public static boolean spreads(SortSpec.Order order, int partitions, List<String> splitters) {
    return partitions > 1 && (order.kind() == OrderKind.SHUFFLE || order.kind() == OrderKind.MD5
        || usesSplitters(order) && splitters != null && !splitters.isEmpty() && splitters.size() < partitions);
  }

  public int partitions() {
    return partitions;
  }

  /** Whether records spread over the partitions; otherwise all are in partition 0. */
  public boolean spreads() {
    return spreads;
  }

  public List<String> splitters() {
    return splitters;
  }

  /** The {@link Keymap#sha256} of the key map records are routed by, null for an order of no key map. */
  public String keymapSha256() {
    return keymap == null ? null : keymap.sha256();
  }

  /**
   * The record's partition: for shuffle and md5 the rank's range, {@code floor(rank * partitions / 2^64)}, rank
   * unsigned; for alphanumeric and key map orders the number of splitters at or below the record's range key
   * (reversed when descending). A record of no key map line goes to partition 0, whose step drops it.
   */
  public int partitionOf(RecordEntry entry) {
    if (!spreads) {
      return 0;
    }
    if (order.kind() == OrderKind.NONE) {
      return (int) ((long) entry.shard() * partitions / inputShards);
    }
    if (order.kind() == OrderKind.CONTENT) {
      int low = 0; // the number of splitters at or before the record in the order (no content key: after all)
      int high = contentSplitters.length;
      while (low < high) {
        int middle = (low + high) >>> 1;
        if (contentOrder.compare(contentSplitters[middle], entry) <= 0) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      return low;
    }
    if (!splitters.isEmpty()) {
      int template = order.kind() == OrderKind.KEYMAP ? keymap.match(entry.key()) : 0;
      if (template < 0) {
        return 0;
      }
      int low = 0; // the number of splitters at or below the record's (template, key)
      int high = splitters.size();
      while (low < high) {
        int middle = (low + high) >>> 1;
        int byTemplate = Integer.compare(splitterTemplates[middle], template);
        if (byTemplate < 0 || byTemplate == 0 && KeyOrder.compareKeys(splitterKeys[middle], entry.key()) <= 0) {
          low = middle + 1;
        } else {
          high = middle;
        }
      }
      return order.isDescending() ? splitters.size() - low : low;
    }
    long rank = (Long) RecordOrders.ranked(order, entry).contentKey();
    return (int) Math.unsignedMultiplyHigh(rank, partitions);
  }

  /**
   * The partition step the record's entry goes to: its partition, or for content and none its key's range of the
   * 64-bit {@link RecordOrders#keyHash}, {@code floor(hash * partitions / 2^64)}, so that every copy of a key meets
   * in one step.
   */
  public int stepOf(RecordEntry entry) {
    return spreads && stepsByKeyHash(order)
        ? (int) Math.unsignedMultiplyHigh(RecordOrders.keyHash(entry.key()), partitions) : partitionOf(entry);
  }

  /**
   * A content splitter as text, for the splitters' SHA-256: the length of its content key's text, ':', that text and
   * the key, so that it reads back exactly (a double's text is its shortest exact form).
   */
  static String contentSplitter(RecordEntry splitter) {
    String value = String.valueOf(splitter.contentKey());
    return value.length() + ":" + value + splitter.key();
  }

  private static RecordEntry contentSplitter(SortSpec.Order order, String text) {
    int colon = text.indexOf(':');
    int end = colon + 1 + Integer.parseInt(text.substring(0, colon));
    Object content = ContentKeys.parse(order.content(),
        text.substring(colon + 1, end).getBytes(StandardCharsets.UTF_8));
    return new RecordEntry(text.substring(end), 0, 0, false, List.of(), 0, content);
  }

  private int templateOf(String rangeKey) {
    return order.kind() == OrderKind.KEYMAP ? Integer.parseInt(rangeKey.substring(0, TEMPLATE_DIGITS)) : 0;
  }

  private String keyOf(String rangeKey) {
    return order.kind() == OrderKind.KEYMAP ? rangeKey.substring(TEMPLATE_DIGITS + 1) : rangeKey;
  }

  private static UnaryOperator<String> rangeKeys(SortSpec.Order order, Keymap keymap) {
    return key -> rangeKey(order, keymap, key);
  }

  /**
   * What splitters split for a record key, compared by code point as the order compares records: the key itself for
   * alphanumeric; for a key map, its template's index in ten digits, ':' and the key (so the template comes first),
   * or null when no line matches the key.
   */
  static String rangeKey(SortSpec.Order order, Keymap keymap, String key) {
    if (order.kind() != OrderKind.KEYMAP) {
      return key;
    }
    int template = keymap.match(key);
    return template < 0 ? null : String.format("%0" + TEMPLATE_DIGITS + "d:%s", template, key);
  }
}
