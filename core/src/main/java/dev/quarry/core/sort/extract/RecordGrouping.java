package dev.quarry.core.sort.extract;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.RawRange;
import dev.quarry.core.archive.RecordKeys;
import dev.quarry.core.fs.WorkFolder;
import dev.quarry.core.text.Printable;
import dev.quarry.core.sort.order.KeyOrder;
import dev.quarry.core.sort.records.RecordEntry;
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
 * so far are written, sorted by key, as a spill file in the worker's work folder; {@link #FAN_IN} spills of one level
 * are merged into one of the next (so each part is rewritten a few times, not once per spill), and at
 * {@link #finish} the spills are merged by key, one record's parts joined in the order they came. Held whole, as
 * before, the grouping of a shard of 150,000 records ran a 64 MiB heap out, 4 shards being in flight
 * ({@code ShardEntriesHeapTest}). A record is at most {@link RecordEntry#MAX_SIZE} bytes and
 * {@link #MAX_RECORD_MEMBERS} members, checked as its members come and as its parts are joined.
 *
 * <p>Records come out in key order, each with the ordinal of its first member in the shard as its position: ordered
 * by position, they are in the order their first members came, whether or not anything was spilled.
 */
final class RecordGrouping implements Closeable {
  /** Spills merged at once: each open one holds a {@link #READ_BUFFER_BYTES} buffer. */
  static final int FAN_IN = 32;
  /**
   * The most members one record may have: a record's members are held together while its parts are joined (some
   * 200 bytes each), and a shard of one key and millions of members ran the heap out before its size passed
   * {@link RecordEntry#MAX_SIZE}.
   */
  static final int MAX_RECORD_MEMBERS = 100_000;
  /** Suffixes shared between members, at most this many and this long each: the cache is bounded too. */
  private static final int SHARED_SUFFIXES = 1024;
  private static final int SHARED_SUFFIX_CHARS = 64;
  private static final int READ_BUFFER_BYTES = 16 << 10;
  private static final Comparator<Part> BY_KEY = (a, b) -> KeyOrder.compareKeys(a.key, b.key);

  private final String shard;
  private final Path folder;
  private final long budgetBytes;
  private final Duplicates duplicates;
  private final Map<String, Part> parts = new HashMap<>();
  /** The suffix of each member name seen, once (a shard's names mostly share a few: ".jpg", ".cls"). */
  private final Map<String, String> suffixes = new HashMap<>();
  /** The spills so far, oldest first (so a key's parts come in the order they were read), with their levels. */
  private final List<Spill> spills = new ArrayList<>();
  private WorkFolder spillFolder;
  private long heldBytes;
  private int members;
  private int spillNumber;

  /** One member of a record: the rest of its name after the key, and where its raw tar bytes lie. */
  record Member(String suffix, RawRange range) {}

  /** A spill file, and how many merges made it (0: written from memory). */
  private record Spill(Path path, int level) {}

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
    private long suffixChars;
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

    private boolean has(String suffix) {
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
      suffixChars += member.suffix().length();
      if (manySuffixes != null) {
        manySuffixes.add(member.suffix());
      } else if (members.size() > 16) {
        manySuffixes = new HashSet<>();
        members.forEach(each -> manySuffixes.add(each.suffix()));
      }
    }

    /** Rough heap bytes, for the budget: each suffix counted whole, shared or not. */
    long heapBytes() {
      return 96 + 2L * key.length() + (manySuffixes == null ? 64L : 112L) * members.size() + 2 * suffixChars
          + (content == null ? 0 : 16 + content.length);
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

  /**
   * Told of each member whose name an earlier member of the shard has: found as it comes when that one is held, and
   * when parts are joined when it was spilled. The one place that decides a name is a duplicate.
   */
  interface Duplicates {
    void duplicate(String memberName) throws IOException;
  }

  /** Receives each record. */
  interface Records {
    void accept(Part record) throws IOException;
  }

  /** A member on its way into the part held for its key: what {@link #checkRoom} and {@link #add} take. */
  record Joining(Part part, String name, String suffix) {}

  /**
   * Groups the members of {@code shard} (for messages). Spills into a folder made under {@code workFolder} at the
   * first spill, past {@code budgetBytes} held; a member whose name came before goes to {@code duplicates}.
   */
  RecordGrouping(String shard, Path workFolder, long budgetBytes, Duplicates duplicates) {
    this.shard = shard;
    this.folder = workFolder;
    this.budgetBytes = budgetBytes;
    this.duplicates = duplicates;
  }

  /**
   * Where member {@code name} goes: the part held for its key, or a new one; null when that part has a member of the
   * name (told to the duplicates). The member counts in the shard's ordinals either way.
   */
  Joining joining(String name) throws IOException {
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
    String suffix = suffixOf(key, name);
    if (part.has(suffix)) {
      duplicates.duplicate(name);
      return null;
    }
    return new Joining(part, name, suffix);
  }

  /** The rest of member {@code name} after its {@code key}, shared with the members before it of the same one. */
  private String suffixOf(String key, String name) {
    String suffix = name.substring(key.length());
    if (suffix.length() > SHARED_SUFFIX_CHARS) {
      return suffix;
    }
    String shared = suffixes.get(suffix);
    if (shared == null && suffixes.size() < SHARED_SUFFIXES) {
      suffixes.put(suffix, suffix);
    }
    return shared != null ? shared : suffix;
  }

  /**
   * Refuses {@code member} when its record would pass a record's most bytes with {@code bytes} more, or its most
   * members: before the member's data is read. Its record's parts already spilled are checked when they are joined.
   */
  void checkRoom(Joining member, long bytes) throws ArchiveException {
    Part part = member.part();
    checkRecord(member.name(), part.key, part.size + bytes, part.members.size() + 1);
  }

  private void checkRecord(String member, String key, long size, int members) throws ArchiveException {
    if (size > RecordEntry.MAX_SIZE) {
      throw ArchiveException.ofMember(shard, member, "its record " + Printable.of(key) + " would hold " + size
          + " bytes or more, over the " + RecordEntry.MAX_SIZE + " bytes (" + (RecordEntry.MAX_SIZE >> 20)
          + " MiB) a record may have (split the file or keep it outside the dataset)");
    }
    if (members > MAX_RECORD_MEMBERS) {
      throw ArchiveException.ofMember(shard, member, "its record " + Printable.of(key) + " would have more than "
          + MAX_RECORD_MEMBERS + " members, more than a record may have (a record's members are grouped in memory;"
          + " split the record into records of their own keys)");
    }
  }

  /**
   * Adds {@code member} (of {@link #joining}), its raw bytes at {@code range} and its data when it is the content
   * key member; refuses it when its record then passes a record's most; spills what is held once past the budget.
   */
  void add(Joining member, RawRange range, byte[] content) throws IOException {
    Part part = member.part();
    long before = part.heapBytes();
    part.add(new Member(member.suffix(), range));
    checkRecord(member.name(), part.key, part.size, part.members.size());
    if (content != null) {
      part.contentSuffix = member.suffix();
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
    } catch (ArchiveException e) {
      throw e; // a duplicate or a record too large, found as parts were joined
    } catch (IOException e) {
      throw WorkFolder.cannotKeep("a shard's record members", e);
    }
    parts.clear();
    heldBytes = 0;
  }

  /**
   * Writes what is held as the newest spill, then merges the newest {@link #FAN_IN} spills into one of the next level
   * while they are all of one level: the spills of a level are always side by side, so merging them keeps every
   * key's parts in the order they came.
   */
  private void writeSpill() throws IOException {
    List<Part> sorted = new ArrayList<>(parts.values());
    sorted.sort(BY_KEY);
    Path spill = nextSpill();
    try (SpillWriter writer = new SpillWriter(spill)) {
      for (Part part : sorted) {
        writer.write(part);
      }
    }
    spills.add(new Spill(spill, 0));
    while (spills.size() >= FAN_IN) {
      int level = spills.getLast().level();
      if (spills.get(spills.size() - FAN_IN).level() != level) {
        break;
      }
      mergeNewest(FAN_IN, level + 1);
    }
  }

  /** Merges the newest {@code count} spills into one of {@code level}, in their place. */
  private void mergeNewest(int count, int level) throws IOException {
    List<Spill> newest = spills.subList(spills.size() - count, spills.size());
    Path merged = nextSpill();
    try (SpillWriter writer = new SpillWriter(merged)) {
      merge(newest.stream().map(Spill::path).toList(), null, writer::write);
    }
    for (Spill spill : newest) {
      Files.deleteIfExists(spill.path());
    }
    newest.clear();
    spills.add(new Spill(merged, level));
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
    try {
      while (spills.size() > FAN_IN) {
        mergeNewest(FAN_IN, spills.getLast().level() + 1);
      }
    } catch (ArchiveException e) {
      throw e;
    } catch (IOException e) {
      throw WorkFolder.cannotKeep("a shard's record members", e);
    }
    merge(spills.stream().map(Spill::path).toList(), held, records);
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
        checkRecord(later.nameOf(member), record.key, record.size, record.members.size());
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
