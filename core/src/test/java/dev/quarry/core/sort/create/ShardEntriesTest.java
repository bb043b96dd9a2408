package dev.quarry.core.sort.create;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.RawRange;
import dev.quarry.core.sort.records.RecordEntry;
import dev.quarry.testkit.SmallDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardEntriesTest {
  @TempDir
  Path folder;

  /**
   * Two shards share the spool's room: the first is held; the second, once the room runs out, writes what it held to
   * the worker's disk and goes on there, giving its room back. Both read back whole and alike from the first, as
   * often and as many at once as asked, and closing them gives back all room and removes the run.
   */
  @Test
  void aShardPastTheSpoolsRoomGoesOnOnDiskAndReadsBackTheSame() throws IOException {
    List<RecordEntry> first = entries("a", 10);
    List<RecordEntry> second = entries("b", 50);
    long firstBytes = first.stream().mapToLong(RecordEntry::estimatedHeapBytes).sum();
    ShardEntries.Spool spool = new ShardEntries.Spool(folder.resolve("entries"), firstBytes + 20 * first.getFirst()
        .estimatedHeapBytes());
    try (ShardEntries held = HeldEntries.of(spool, first); ShardEntries spilled = HeldEntries.of(spool, second)) {
      assertThat(held.onDisk()).isFalse();
      assertThat(spilled.onDisk()).isTrue();
      assertThat(spool.heldBytes()).as("room held: the first shard's alone").isEqualTo(firstBytes);
      assertThat(read(held)).isEqualTo(first);
      try (ShardEntries.Cursor early = spilled.cursor()) {
        assertThat(early.next()).isEqualTo(second.getFirst());
        assertThat(read(spilled)).as("a second cursor while the first reads").isEqualTo(second);
        assertThat(early.next()).isEqualTo(second.get(1));
      }
      assertThat(read(spilled)).isEqualTo(second);
      assertThat(spilled.count()).isEqualTo(50);
      assertThat(spilled.bytes()).isEqualTo(second.stream().mapToLong(RecordEntry::size).sum());
    }
    assertThat(spool.heldBytes()).isZero();
    try (Stream<Path> left = Files.walk(folder)) {
      assertThat(left.filter(Files::isRegularFile).toList()).as("runs left").isEmpty();
    }
  }

  /**
   * A reader of entries on the disk holds its buffers and a read window of up to 1 MiB (about 1.6 MiB in all): each
   * one open counts what it holds of its run in the spool's room until closed, so a shard added while another is read goes to disk instead of past the room, and one
   * added after it closes is held. A reader of held entries costs nothing. Before, readers were outside the room: with
   * four uploads reading, about 6 MiB besides the entries' share.
   */
  @Test
  void readersOfEntriesOnDiskCountInTheRoomWhileOpen() throws IOException {
    List<RecordEntry> held = entries("a", 10);
    long heldBytes = held.stream().mapToLong(RecordEntry::estimatedHeapBytes).sum();
    ShardEntries.Spool spool = new ShardEntries.Spool(folder.resolve("entries"), heldBytes + 20 * held.getFirst()
        .estimatedHeapBytes());
    try (ShardEntries inHeap = HeldEntries.of(spool, held); ShardEntries spilled = HeldEntries.of(spool,
        entries("b", 50))) {
      assertThat(spilled.onDisk()).isTrue();
      try (ShardEntries.Cursor ofHeld = inHeap.cursor()) {
        assertThat(spool.heldBytes()).as("a reader of held entries").isEqualTo(heldBytes);
      }
      long reader = spilled.readerBytes();
      assertThat(reader).as("a reader of a small run: its buffers and the run, less than a whole window")
          .isGreaterThan(576L << 10).isLessThan(ShardEntries.Spool.READER_BYTES);
      try (ShardEntries.Cursor first = spilled.cursor(); ShardEntries.Cursor second = spilled.cursor()) {
        assertThat(spool.heldBytes()).as("two readers of entries on disk").isEqualTo(heldBytes + 2 * reader);
        try (ShardEntries whileRead = HeldEntries.of(spool, entries("c", 1))) {
          assertThat(whileRead.onDisk()).as("a shard added while the readers hold the room").isTrue();
        }
        first.close();
        first.close();
        assertThat(spool.heldBytes()).as("one reader closed, twice").isEqualTo(heldBytes + reader);
      }
      assertThat(spool.heldBytes()).isEqualTo(heldBytes);
      try (ShardEntries afterwards = HeldEntries.of(spool, entries("c", 1))) {
        assertThat(afterwards.onDisk()).as("a shard added once they closed").isFalse();
      }
      assertThat(ShardEntries.Spool.READER_BYTES).isEqualTo((576L + 1024) << 10);
    }
    assertThat(spool.heldBytes()).isZero();
  }

  /** A full disk under a shard's entries says what to do, and closing the shard gives back its room. */
  @Test
  void aFullDiskSaysWhatToDo() throws Exception {
    ShardEntries.Spool spool;
    try (SmallDisk disk = SmallDisk.mount(folder.resolve("small"), "64k")) {
      spool = new ShardEntries.Spool(disk.folder().resolve("entries"), 0);
      try (ShardEntries shard = spool.entries()) {
        assertThatThrownBy(() -> {
          for (RecordEntry entry : entries(String.format("%0200d/", 7), 100_000)) {
            shard.add(entry);
          }
          shard.finish();
        }).hasMessageStartingWith("Cannot keep an output shard's record entries on this worker's disk (")
            .hasMessageContaining("No space left on device")
            .hasMessageEndingWith("): give its temporary folder more room");
      }
    }
    assertThat(spool.heldBytes()).isZero();
  }

  private static List<RecordEntry> entries(String prefix, int count) {
    List<RecordEntry> entries = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      entries.add(new RecordEntry(prefix + i, i % 3, i, true, List.of(new RawRange(1024L * i, 512 + i)), 512 + i,
          (long) i, i % 2));
    }
    return entries;
  }

  private static List<RecordEntry> read(ShardEntries entries) throws IOException {
    List<RecordEntry> read = new ArrayList<>();
    try (ShardEntries.Cursor cursor = entries.cursor()) {
      for (RecordEntry entry = cursor.next(); entry != null; entry = cursor.next()) {
        read.add(entry);
      }
    }
    return read;
  }
}
