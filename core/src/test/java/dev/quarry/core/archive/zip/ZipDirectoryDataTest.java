package dev.quarry.core.archive.zip;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.archive.ArchiveException;
import dev.quarry.core.archive.ArchiveLimits;
import dev.quarry.testkit.CommandResult;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A directory entry that claims data cannot make the reader buffer it without limit. */
class ZipDirectoryDataTest {
  @TempDir Path temp;

  @Test
  void aDirectoryEntryWithDataIsCappedLikeAnyMember() throws Exception {
    // Written to a pipe, so the entry's sizes follow its data and the parser must buffer to find its end.
    CommandResult.check(temp, "sh", "-c", """
        python3 -c "
        import sys, zipfile
        with zipfile.ZipFile(sys.stdout.buffer, 'w') as z:
            z.writestr(zipfile.ZipInfo('d/'), bytes(4 << 20))
            z.writestr(zipfile.ZipInfo('d/x.txt'), b'x')
        " | cat > dir-with-data.zip
        """);
    byte[] zip = Files.readAllBytes(temp.resolve("dir-with-data.zip"));
    ArchiveLimits small = new ArchiveLimits(1 << 20, 1 << 20, 1000, 1L << 40);
    assertThatThrownBy(() -> {
      try (ZipReader reader = new ZipReader(new ByteArrayInputStream(zip), "dir.zip", small)) {
        while (reader.next() != null) {
          // read through
        }
      }
    }).isInstanceOf(ArchiveException.class).hasMessageStartingWith("Cannot read member d of shard dir.zip: it has no size in its local header");
  }
}
