package dev.quarry.core.sync.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.sync.cas.ChunkIndex;
import dev.quarry.core.sync.cas.Digest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A listing reads back what was written, and bytes that are not one (damaged, another version) are no listing. */
class FolderListingTest {
  private static final Digest CONTENT = Digest.of("content".getBytes(StandardCharsets.UTF_8));
  private static final Digest FOLDER = Digest.of("{}".getBytes(StandardCharsets.UTF_8));

  @Test
  void aListingReadsBackEntryByEntry() {
    FolderListing.Writer writer = new FolderListing.Writer(3);
    writer.file("caf\u00e9", 0644, new FileIdentity(0100000, 0644, 42, 1_700_000_000_123_456_789L, 7), CONTENT);
    writer.link("link", "target/\u00e9");
    writer.directory("sub", 0755, FOLDER, 12, 3400);
    FolderListing listing = FolderListing.decode(writer.finish(FOLDER, 13, 3407, false, List.of()));

    assertThat(listing.count()).isEqualTo(3);
    assertThat(listing.digest()).isEqualTo(FOLDER);
    assertThat(listing.files()).isEqualTo(13);
    assertThat(listing.bytes()).isEqualTo(3407);
    assertThat(listing.chunked()).isFalse();
    assertThat(listing.isNamed(0, "caf\u00e9")).isTrue();
    assertThat(listing.isNamed(0, "cafe")).isFalse();
    assertThat(listing.mode(0)).isEqualTo(0644);
    assertThat(listing.sameFile(0, new FileIdentity(0100000, 0644, 42, 1_700_000_000_123_456_789L, 7))).isTrue();
    assertThat(listing.sameFile(0, new FileIdentity(0100000, 0644, 43, 1_700_000_000_123_456_789L, 7))).isFalse();
    assertThat(listing.digest(0)).isEqualTo(CONTENT);
    assertThat(listing.type(1)).isEqualTo(FolderListing.LINK);
    assertThat(listing.target(1)).isEqualTo("target/\u00e9");
    assertThat(listing.sameFolder(2, FOLDER, 12, 3400)).isTrue();
    assertThat(listing.sameFolder(2, FOLDER, 12, 3401)).isFalse();
    assertThat(listing.indexOf("sub")).isEqualTo(2);
    assertThat(listing.indexOf("nope")).isEqualTo(-1);
  }

  @Test
  void bytesThatAreNoListingAreRefusedSoTheFolderIsBuiltAgain() {
    FolderListing.Writer writer = new FolderListing.Writer(1);
    writer.file("a", 0644, new FileIdentity(0100000, 0644, 1, 2, 7), CONTENT);
    byte[] bytes = writer.finish(FOLDER, 1, 7, false, List.of());
    assertThat(FolderListing.decode(Arrays.copyOf(bytes, bytes.length - 1))).isNull();
    assertThat(FolderListing.decode(Arrays.copyOf(bytes, bytes.length + 1))).isNull();
    assertThat(FolderListing.decode(new byte[0])).isNull();
    byte[] otherVersion = bytes.clone();
    otherVersion[0] = 3;
    assertThat(FolderListing.decode(otherVersion)).isNull();
    byte[] hugeCount = bytes.clone();
    java.nio.ByteBuffer.wrap(hugeCount).putInt(58, Integer.MAX_VALUE);
    assertThat(FolderListing.decode(hugeCount)).isNull();
  }

  @Test
  void aChunkedFolderKeepsItsChunksAndAListingOfVersion1IsStillReadWithoutThem() {
    FolderListing.Writer writer = new FolderListing.Writer(1);
    writer.file("a", 0644, new FileIdentity(0100000, 0644, 1, 2, 7), CONTENT);
    List<ChunkIndex.Chunk> chunks = List.of(new ChunkIndex.Chunk("a", CONTENT, 300, 300, 2100),
        new ChunkIndex.Chunk("\u00e9t\u00e9", FOLDER, 5000, 4000, 0));
    FolderListing listing = FolderListing.decode(writer.finish(FOLDER, 1, 7, true, chunks));
    assertThat(listing.chunks()).isEqualTo(chunks);
    assertThat(listing.name(0)).isEqualTo("a");
    FolderListing.Writer copied = new FolderListing.Writer(1);
    copied.copy(listing, 0); // the last entry ends where the chunks start
    assertThat(FolderListing.decode(copied.finish(FOLDER, 1, 7, false, List.of())).sameFile(0,
        new FileIdentity(0100000, 0644, 1, 2, 7))).isTrue();

    // Version 1, as the last release wrote it: the same entries, no chunk list.
    FolderListing.Writer old = new FolderListing.Writer(1);
    old.file("a", 0644, new FileIdentity(0100000, 0644, 1, 2, 7), CONTENT);
    byte[] current = old.finish(FOLDER, 1, 7, false, List.of());
    byte[] version1 = Arrays.copyOf(current, current.length - 4);
    version1[0] = 1;
    FolderListing read = FolderListing.decode(version1);
    assertThat(read).isNotNull();
    assertThat(read.chunks()).isEmpty();
    assertThat(read.digest(0)).isEqualTo(CONTENT);
  }
}
