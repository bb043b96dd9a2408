package dev.quarry.core.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RangedContentTest {
  @TempDir
  Path dir;

  /** Every range of pieces one after the other (bytes, a file, a shared channel, empty ones) reads what it should. */
  @Test
  void aConcatenationReadsEveryRangeAcrossItsPieces() throws IOException {
    Path file = Files.writeString(dir.resolve("file"), "0123456789");
    Path shared = Files.writeString(dir.resolve("shared"), "ABCDEFGH--");
    try (FileChannel channel = FileChannel.open(shared, StandardOpenOption.READ)) {
      RangedContent joined = RangedContent.concat(List.of(RangedContent.of("abc".getBytes(UTF_8)),
          RangedContent.of(new byte[0]), RangedContent.of(file), RangedContent.of(channel, shared.toString(), 8),
          RangedContent.of(new byte[0]), RangedContent.of("xyz".getBytes(UTF_8))));
      String whole = "abc0123456789ABCDEFGHxyz";
      assertThat(joined.length()).isEqualTo(whole.length());
      for (int offset = 0; offset <= whole.length(); offset++) {
        for (int length = 0; offset + length <= whole.length(); length++) {
          try (InputStream in = joined.open(offset, length)) {
            assertThat(new String(in.readAllBytes(), UTF_8)).as(offset + ", " + length)
                .isEqualTo(whole.substring(offset, offset + length));
          }
        }
      }
    }
  }

  /**
   * A stream opens each piece when it reaches it, not before: a part of a pack of 1,000 segments, or of a shard of
   * 262,144 records of 1 KiB, does not open them all at once.
   */
  @Test
  void aConcatenationOpensEachPieceOnlyWhenItReachesIt() throws IOException {
    List<Integer> opened = new ArrayList<>();
    List<RangedContent> pieces = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int piece = i;
      RangedContent bytes = RangedContent.of(("piece" + i).getBytes(UTF_8));
      pieces.add(new RangedContent() {
        @Override
        public long length() {
          return bytes.length();
        }

        @Override
        public InputStream open(long offset, long length) throws IOException {
          opened.add(piece);
          return bytes.open(offset, length);
        }
      });
    }
    RangedContent joined = RangedContent.concat(pieces);
    try (InputStream in = joined.open(7, 10)) { // "iece1piece" : pieces 1 and 2
      assertThat(opened).isEmpty();
      assertThat(new String(in.readNBytes(3), UTF_8)).isEqualTo("iec");
      assertThat(opened).containsExactly(1);
      assertThat(new String(in.readAllBytes(), UTF_8)).isEqualTo("e1piece");
    }
    assertThat(opened).containsExactly(1, 2);
  }

  /** A piece that ends early ends the whole there: the bytes after it are never shifted into its place. */
  @Test
  void aPieceThatEndsEarlyEndsTheWholeRatherThanShiftingWhatFollows() throws IOException {
    RangedContent cut = new RangedContent() {
      @Override
      public long length() {
        return 6;
      }

      @Override
      public InputStream open(long offset, long length) throws IOException {
        return RangedContent.of("abc".getBytes(UTF_8)).open(Math.min(offset, 3), Math.max(0, Math.min(length,
            3 - offset)));
      }
    };
    RangedContent joined = RangedContent.concat(List.of(cut, RangedContent.of("xyz".getBytes(UTF_8))));
    try (InputStream in = joined.open(0, 9)) {
      assertThat(new String(in.readAllBytes(), UTF_8)).isEqualTo("abc");
    }
  }
}
