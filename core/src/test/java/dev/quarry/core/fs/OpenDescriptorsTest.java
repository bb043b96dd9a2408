package dev.quarry.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
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
  void anotherThreadsDescriptorClosedBetweenTheOpenAndTheReadOfItsEntryIsPassedOver() throws Exception {
    Path image = Files.writeString(temp.resolve("image.sqfs"), "checked");
    Path other = Files.writeString(temp.resolve("other.sqfs"), "read by another thread");
    FileChannel victim = FileChannel.open(other, StandardOpenOption.READ);
    victim.position(12345);
    String victimFd = descriptorAt(12345);
    AtomicBoolean closedMidRead = new AtomicBoolean();
    try (FileChannel channel = FileChannel.open(image, StandardOpenOption.READ)) {
      // The victim's entry is opened, then the victim is closed, then the entry is read: procfs answers ENOENT.
      OpenDescriptors.Opened opened = OpenDescriptors.describe(channel, info -> {
        if (!info.getFileName().toString().equals(victimFd)) {
          return Files.readString(info);
        }
        try (InputStream entry = Files.newInputStream(info)) {
          victim.close();
          closedMidRead.set(true);
          return new String(entry.readAllBytes(), StandardCharsets.UTF_8);
        }
      });
      assertThat(closedMidRead).as("the victim's entry was read after it closed").isTrue();
      assertThat(opened.identity()).isEqualTo(FileIdentity.of(image));
    } finally {
      victim.close();
    }
  }

  /** The number of this process's descriptor at {@code position}. */
  private static String descriptorAt(long position) throws Exception {
    try (DirectoryStream<Path> infos = Files.newDirectoryStream(Path.of("/proc/self/fdinfo"))) {
      for (Path info : infos) {
        if (Files.readString(info).lines().anyMatch(("pos:\t" + position)::equals)) {
          return info.getFileName().toString();
        }
      }
    }
    throw new AssertionError("no descriptor at " + position);
  }

  @Test
  void devicesAreNamedAsLosetupPrintsThem() {
    FileIdentity identity = FileIdentity.ofNumbers("259:3", 42);
    assertThat(identity.major()).isEqualTo(259);
    assertThat(identity.minor()).isEqualTo(3);
    assertThat(identity).hasToString("inode 42 on device 259:3");
  }
}
