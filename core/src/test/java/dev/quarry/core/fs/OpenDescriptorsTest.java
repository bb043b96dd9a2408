package dev.quarry.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OpenDescriptorsTest {
  @TempDir Path temp;

  @Test
  void anOpenFileIsDescribedAsTheFileItReadsWhateverItsPathNamesSince() throws Exception {
    Path image = Files.writeString(temp.resolve("image.sqfs"), "checked");
    Path other = Files.writeString(temp.resolve("other.sqfs"), "put in its place");
    FileIdentity checked = FileIdentity.of(image);
    try (FileChannel channel = FileChannel.open(image, StandardOpenOption.READ)) {
      Files.move(other, image, StandardCopyOption.REPLACE_EXISTING);
      OpenDescriptors.Opened opened = OpenDescriptors.describe(channel);
      assertThat(opened.identity()).isEqualTo(checked).isNotEqualTo(FileIdentity.of(image));
      assertThat(opened.attributes().size()).isEqualTo("checked".length());
      assertThat(channel.position()).isZero();
    }
  }

  @Test
  void devicesAreNamedAsLosetupPrintsThem() {
    FileIdentity identity = FileIdentity.ofNumbers("259:3", 42);
    assertThat(identity.major()).isEqualTo(259);
    assertThat(identity.minor()).isEqualTo(3);
    assertThat(identity).hasToString("inode 42 on device 259:3");
  }
}
