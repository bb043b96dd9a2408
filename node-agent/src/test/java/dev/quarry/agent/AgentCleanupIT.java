package dev.quarry.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quarry.core.cache.agent.OwnedPaths;
import dev.quarry.core.cache.host.MountTable;
import dev.quarry.core.cache.host.Mounts;
import dev.quarry.core.cache.image.ImageBuilder;
import dev.quarry.core.fs.FileIdentity;
import dev.quarry.core.fs.RootedPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code quarry-agent cleanup} on real loop mounts: it removes what the agents recorded, and nothing else. */
class AgentCleanupIT {
  @TempDir Path temp;

  @Test
  void removesTheRecordedMountsAndCopiesAndLeavesForeignMountsAndFiles() throws Exception {
    Path content = Files.createDirectories(temp.resolve("content"));
    Files.writeString(content.resolve("labels.txt"), "cat\n");
    Path image = ImageBuilder.build(content, temp.resolve("pets.sqfs"), ImageBuilder.Compression.GZIP, 2).image();
    Path cache = temp.resolve("cache");
    Path mounted = temp.resolve("mnt/pets");
    OwnedPaths owned = OwnedPaths.open(new RootedPaths(List.of(cache)), cache, "pets");
    owned.recordMount(mounted);
    Mounts.mountImage(image, FileIdentity.of(image), Files.createDirectories(mounted));
    Path byHand = temp.resolve("mnt/by-hand");
    Mounts.mountImage(image, FileIdentity.of(image), Files.createDirectories(byHand));
    Path notes = Files.writeString(cache.resolve("notes.json"), "{}");
    try {
      assertThat(new CommandLine(new AgentCommand()).execute("cleanup", "--cache-dir", cache.toString(),
          "--mount-roots", temp.resolve("mnt").toString())).isZero();
      assertThat(MountTable.read().stackAt(mounted)).isEmpty();
      assertThat(mounted).doesNotExist();
      assertThat(cache.resolve("pets")).doesNotExist();
      assertThat(MountTable.read().stackAt(byHand)).as("a mount no agent recorded").hasSize(1);
      assertThat(notes).exists();
    } finally {
      if (!MountTable.read().stackAt(byHand).isEmpty()) {
        Mounts.detachTop(byHand);
      }
    }
  }
}
