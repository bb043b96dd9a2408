package dev.quarry.core.sort.extract;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.RecordKeys;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.records.StoreRunStorage;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * One input shard's members grouped into records by WebDataset's rule (members that share a key form a record), across
 * the whole shard: a record's members may lie apart, and a member name seen anywhere before in the shard is a
 * duplicate. It holds a bounded share of the heap: past {@code budgetBytes} of members, the parts of records gathered
 * so far are written, sorted by key, as a spill file in the worker's work folder, and at {@link #finish} the spills
 * are merged by key, one record's parts joined in the order they came (in passes of {@link #FAN_IN} spills). Held
 * whole, as before, the grouping of a shard of 150,000 records ran a 64 MiB heap out, 4 shards being in flight
 * ({@code ShardEntriesHeapTest}).
 *
 * <p>Records come out in key order, each with the ordinal of its first member in the shard as its position: records
 * keep the order of their first members, whether or not anything was spilled.
 */
final class RecordGrouping implements Closeable {
  /** Spills merged at once: each open one holds a {@link #READ_BUFFER_BYTES} buffer. */
  static final int FAN_IN = 32;
  private static final int READ_BUFFER_BYTES = 16 << 10;
  private static final Comparator<Part> BY_KEY = (a, b) -> KeyOrder.compareKeys(a.key, b.key);

  private final String shard;
  private final Path folder;
  private final long budgetBytes;
  private final Duplicates duplicates;
  private final Map<String, Part> parts = new HashMap<>();
  /** The suffix of each member name seen, once (a shard's names mostly share a few: ".jpg", ".cls"). */
  private final Map<String, String> suffixes = new HashMap<>();
  private final List<Path> spills = new ArrayList<>();
  private WorkFolder spillFolder;
  private long heldBytes;
  private int members;
  private int spillNumber;

  /** One member of a record: the rest of its name after the key, and where its raw tar bytes lie. */
  record Member(String suffix, RawRange range) {}

  /**
   * A record, or the part of one gathered between two spills: its members in the order they came, and the content
   * key member's data when one of them is it.
   */
  static final class Part {
    final String key;
    final int position;
    final List<Member> members = new ArrayList<>(2);
    /** The suffixes of {@link #members} once there are many: a record of a million members is checked in O(1). */
    private Set<String> manySuffixes;
    long size;
    String contentSuffix;
    byte[] content;

    Part(String key, int position) {
      this.key = key;
      this.position = position;
    }

    String nameOf(Member member) {
      return key + member.suffix();
    }

    String contentMember() {
      return contentSuffix == null ? null : key + contentSuffix;
    }

    boolean has(String suffix) {
      if (manySuffixes != null) {
        return manySuffixes.contains(suffix);
      }
      for (Member member : members) {
        if (member.suffix().equals(suffix)) {
          return true;
        }
      }
      return false;
    }

    void add(Member member) {
      members.add(member);
      size += member.range().length();
      if (manySuffixes != null) {
        manySuffixes.add(member.suffix());
      } else if (members.size() > 16) {
        manySuffixes = new HashSet<>();
        members.forEach(each -> manySuffixes.add(each.suffix()));
      }
    }

    /** Rough heap bytes, for the budget. */
    long heapBytes() {
      return 96 + 2L * key.length() + 64L * members.size() + (content == null ? 0 : 16 + content.length);
    }

    /** The members' ranges, those that follow one another joined. */
    List<RawRange> ranges() {
      List<RawRange> ranges = new ArrayList<>(Math.min(members.size(), 4));
      for (Member member : members) {
        RawRange range = member.range();
        int last = ranges.size() - 1;
        if (last >= 0 && ranges.get(last).end() == range.offset()) {
          ranges.set(last, new RawRange(ranges.get(last).offset(), ranges.get(last).length() + range.length()));
        } else {
          ranges.add(range);
        }
      }
      return ranges;
    }
  }

  /** Told of each member dropped when parts are joined: its name came in an earlier part of the record. */
  interface Duplicates {
    void duplicate(String memberName) throws IOException;
  }

  /** Receives each record. */
  interface Records {
    void accept(Part record) throws IOException;
  }

  /**
   * Groups the members of {@code shard} (for messages). Spills into a folder made under {@code workFolder} at the first spill, past {@code budgetBytes} held; a member
   * dropped as parts are joined goes to {@code duplicates}.
   */
  RecordGrouping(String shard, Path workFolder, long budgetBytes, Duplicates duplicates) {
    this.shard = shard;
    this.folder = workFolder;
    this.budgetBytes = budgetBytes;
    this.duplicates = duplicates;
  }

  /**
   * The part of a record member {@code name} goes into: the one held for its key, or a new one. The member counts
   * in the shard's ordinals whatever the caller then does with it.
   */
  Part partOf(String name) throws IOException {
    if (members == Integer.MAX_VALUE) {
      throw ArchiveException.of(shard, "it has more than " + Integer.MAX_VALUE + " members, more than a sort"
          + " numbers (split the shard)");
    }
    int ordinal = members++;
    String key = RecordKeys.of(name);
    Part part = parts.get(key);
    if (part == null) {
      part = new Part(key, ordinal);
      parts.put(key, part);
      heldBytes += part.heapBytes() + 48;
    }
    return part;
  }

  /** The suffix of member {@code name} of {@code part}: what {@link Part#has} and {@link #add} take. */
  String suffixOf(Part part, String name) {
    String suffix = name.substring(part.key.length());
    return suffixes.size() < 1024 ? suffixes.computeIfAbsent(suffix, each -> each) : suffix;
  }

  /** Adds a member to {@code part} (of {@link #partOf}), spilling what is held once past the budget. */
  void add(Part part, String suffix, RawRange range, byte[] content) throws IOException {
    long before = part.heapBytes();
    part.add(new Member(suffix, range));
    if (content != null) {
      part.contentSuffix = suffix;
      part.content = content;
    }
    heldBytes += part.heapBytes() - before;
    if (heldBytes >= budgetBytes) {
      spill();
    }
  }

  /** How many spill files were written, merge passes' included. */
  int spills() {
    return spillNumber;
  }

  private void spill() throws IOException {
    try {
      writeSpill();
    } catch (IOException e) {
      throw StoreRunStorage.cannotKeepOnOwnDisk("a shard's record members", e);
    }
    parts.clear();
    heldBytes = 0;
  }

  /** Writes what is held as the next spill, the spills so far merged into one first when they are {@link #FAN_IN}. */
  private void writeSpill() throws IOException {
    if (spills.size() == FAN_IN) {
      Path merged = nextSpill();
      try (SpillWriter writer = new SpillWriter(merged)) {
        merge(spills, null, writer::write);
      }
      deleteAll(spills);
      spills.add(merged);
    }
    List<Part> sorted = new ArrayList<>(parts.values());
    sorted.sort(BY_KEY);
    Path spill = nextSpill();
    try (SpillWriter writer = new SpillWriter(spill)) {
      for (Part part : sorted) {
        writer.write(part);
      }
    }
    spills.add(spill);
  }

  private Path nextSpill() throws IOException {
    if (spillFolder == null) {
      spillFolder = WorkFolder.create(folder, "grouping-");
    }
    return spillFolder.path().resolve(String.format("%06d.parts", spillNumber++));
  }

  /**
   * Gives every record, in key order, its parts joined (a member whose name an earlier part has goes to the
   * duplicates and not into the record), then frees what was held.
   */
  void finish(Records records) throws IOException {
    List<Part> held = new ArrayList<>(parts.values());
    held.sort(BY_KEY);
    parts.clear();
    heldBytes = 0;
    if (spills.isEmpty()) {
      for (Part part : held) {
        records.accept(part);
      }
      return;
    }
    merge(spills, held, records);
  }

  /**
   * Merges {@code files} (then {@code held}, the newest, when not null) by key, joining one key's parts in the order
   * of their sources: older spills hold earlier members.
   */
  private void merge(List<Path> files, List<Part> held, Records out) throws IOException {
    List<SpillReader> readers = new ArrayList<>();
    try {
      PriorityQueue<Source> queue = new PriorityQueue<>((a, b) -> {
        int byKey = KeyOrder.compareKeys(a.current.key, b.current.key);
        return byKey != 0 ? byKey : Integer.compare(a.order, b.order);
      });
      for (Path file : files) {
        SpillReader reader = new SpillReader(file);
        readers.add(reader);
        Source source = new Source(readers.size(), reader::read);
        if (source.advance()) {
          queue.add(source);
        }
      }
      if (held != null) {
        var iterator = held.iterator();
        Source source = new Source(readers.size() + 1, () -> iterator.hasNext() ? iterator.next() : null);
        if (source.advance()) {
          queue.add(source);
        }
      }
      while (!queue.isEmpty()) {
        Source first = queue.poll();
        Part record = first.current;
        requeue(queue, first);
        while (!queue.isEmpty() && queue.peek().current.key.equals(record.key)) {
          Source next = queue.poll();
          join(record, next.current);
          requeue(queue, next);
        }
        out.accept(record);
      }
    } finally {
      for (SpillReader reader : readers) {
        reader.close();
      }
    }
  }

  private static void requeue(PriorityQueue<Source> queue, Source source) throws IOException {
    if (source.advance()) {
      queue.add(source);
    }
  }

  /** Appends {@code later}'s members to {@code record}, but those whose names it has. */
  private void join(Part record, Part later) throws IOException {
    for (Member member : later.members) {
      if (record.has(member.suffix())) {
        duplicates.duplicate(later.nameOf(member));
      } else {
        record.add(member);
        if (member.suffix().equals(later.contentSuffix)) {
          record.contentSuffix = later.contentSuffix;
          record.content = later.content;
        }
      }
    }
  }

  @Override
  public void close() throws IOException {
    parts.clear();
    spills.clear();
    if (spillFolder != null) {
      spillFolder.close();
      spillFolder = null;
    }
  }

  private static void deleteAll(List<Path> files) throws IOException {
    for (Path file : files) {
      Files.deleteIfExists(file);
    }
    files.clear();
  }

  private interface PartSupplier {
    Part next() throws IOException;
  }

  /** A sorted source of parts and the one it is at; {@code order} breaks ties between sources of one key. */
  private static final class Source {
    final int order;
    final PartSupplier parts;
    Part current;

    Source(int order, PartSupplier parts) {
      this.order = order;
      this.parts = parts;
    }

    boolean advance() throws IOException {
      current = parts.next();
      return current != null;
    }
  }

  /**
   * Parts as this process writes them to its own work folder: key, position, members (suffix, offset, length), the
   * content member's index and data.
   */
  private static final class SpillWriter implements Closeable {
    private final DataOutputStream out;

    SpillWriter(Path file) throws IOException {
      out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
    }

    void write(Part part) throws IOException {
      writeString(part.key);
      out.writeInt(part.position);
      out.writeInt(part.members.size());
      int contentIndex = -1;
      for (int i = 0; i < part.members.size(); i++) {
        Member member = part.members.get(i);
        writeString(member.suffix());
        out.writeLong(member.range().offset());
        out.writeLong(member.range().length());
        if (member.suffix().equals(part.contentSuffix)) {
          contentIndex = i;
        }
      }
      out.writeInt(contentIndex);
      if (contentIndex >= 0) {
        out.writeInt(part.content.length);
        out.write(part.content);
      }
    }

    private void writeString(String text) throws IOException {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      out.writeInt(bytes.length);
      out.write(bytes);
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  private static final class SpillReader implements Closeable {
    private final Path file;
    private final DataInputStream in;

    SpillReader(Path file) throws IOException {
      this.file = file;
      in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), READ_BUFFER_BYTES));
    }

    /** The next part, or null at the end. */
    Part read() throws IOException {
      int keyLength;
      try {
        keyLength = in.readInt();
      } catch (EOFException end) {
        return null;
      }
      Part part = new Part(readString(keyLength), in.readInt());
      int count = in.readInt();
      for (int i = 0; i < count; i++) {
        part.add(new Member(readString(in.readInt()), new RawRange(in.readLong(), in.readLong())));
      }
      int contentIndex = in.readInt();
      if (contentIndex >= 0) {
        part.contentSuffix = part.members.get(contentIndex).suffix();
        part.content = in.readNBytes(in.readInt());
      }
      return part;
    }

    private String readString(int length) throws IOException {
      if (length < 0 || length > 1 << 24) {
        throw new IOException("Cannot read " + file + ": it is not a spill of record members (a length of "
            + length + ")");
      }
      return new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
