package dev.quarry.core.sync.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileClockTest {
  @TempDir Path temp;

  @Test
  void filesOnAnotherFileSystemThanTheStateFolderAreAllowedItsCoarsestTimes() throws Exception {
    // A folder on FAT keeps times of 2 s: a file stamped a second ago may be written again and keep its time, which
    // the state folder's finer clock has long passed. Here /dev/shm (tmpfs) stands for the other file system.
    Path elsewhere = Path.of("/dev/shm");
    assumeTrue(Files.isDirectory(elsewhere) && !Files.getAttribute(elsewhere, "unix:dev")
        .equals(Files.getAttribute(temp, "unix:dev")), "/dev/shm on a file system of its own");
    Path data = Files.createTempDirectory(elsewhere, "file-clock-test");
    try {
      FileClock clock = new FileClock(Files.createDirectories(temp.resolve("state")));
      long aSecondAgo = System.currentTimeMillis() * 1_000_000L - 1_000_000_000L;
      assertThat(clock.beforeLooking(temp.resolve("data")).mtimeToRecord(aSecondAgo)).as("the same file system")
          .isEqualTo(aSecondAgo);
      assertThat(clock.beforeLooking(data).mtimeToRecord(aSecondAgo)).as("another file system")
          .isEqualTo(FileClock.Horizon.UNTRUSTED_MTIME);
      assertThat(clock.past(aSecondAgo, data.resolve("not/yet")).mtimeToRecord(aSecondAgo))
          .as("files written there, their folder not made yet").isEqualTo(FileClock.Horizon.UNTRUSTED_MTIME);
    } finally {
      Files.delete(data);
    }
    assertThat(temp.resolve("state")).isEmptyDirectory();
  }
}
