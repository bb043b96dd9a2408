package dev.quarry.core.cache.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class MountTableTest {
  private static final List<String> LINES = List.of(
      "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
      "40 22 7:0 / /mnt/quarry/imagenet ro,relatime shared:20 - squashfs /dev/loop0 ro",
      "41 40 7:1 / /mnt/quarry/imagenet ro,relatime shared:21 - squashfs /dev/loop1 ro",
      "42 22 7:2 / /mnt/quarry/with\\040space ro,relatime - squashfs /dev/loop2 ro",
      "43 22 0:5 / /mnt/quarry/deep/er rw - tmpfs tmpfs rw");

  @Test
  void stacksMountsOnOnePathLowestFirst() {
    MountTable table = MountTable.parse(LINES);
    assertThat(table.stackAt(Path.of("/mnt/quarry/imagenet"))).extracting(MountEntry::device)
        .containsExactly("7:0", "7:1");
    assertThat(table.stackAt(Path.of("/mnt/quarry/none"))).isEmpty();
  }

  @Test
  void listsMountPointsDirectlyUnderARootAndUnescapesNames() {
    MountTable table = MountTable.parse(LINES);
    assertThat(table.mountPointsUnder(Path.of("/mnt/quarry")))
        .containsExactly(Path.of("/mnt/quarry/imagenet"), Path.of("/mnt/quarry/with space"));
    assertThat(table.entries().get(1).fsType()).isEqualTo("squashfs");
    assertThat(table.entries().get(1).source()).isEqualTo("/dev/loop0");
  }

  @Test
  void refusesAMalformedLine() {
    assertThatThrownBy(() -> MountTable.parse(List.of("1 2 3")))
        .hasMessage("Invalid mountinfo line: 1 2 3");
  }

  @Test
  void readsDiskStatsInFixedSectorsOf512Bytes() {
    var bytes = DiskStats.parse(List.of(
        "   7       0 loop0 120 0 2048 30 0 0 0 0 0 40 30 0 0 0 0 0 0",
        "   8       0 sda 5 1 16 2 0 0 0 0 0 3 2"));
    assertThat(bytes).containsEntry("loop0", 2048L * 512).containsEntry("sda", 16L * 512);
  }
}
