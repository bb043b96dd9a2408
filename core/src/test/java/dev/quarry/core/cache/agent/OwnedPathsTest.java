package dev.quarry.core.cache.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnedPathsTest {
  @TempDir Path cache;

  @Test
  void aFolderTheAgentDidNotCreateIsRefusedAndLeftAsItIs() throws Exception {
    Path theirs = Files.createDirectories(cache.resolve("imagenet"));
    Path kept = Files.writeString(theirs.resolve("imagenet.json"), "{}");
    assertThatThrownBy(() -> OwnedPaths.open(cache, "imagenet")).hasMessage("Cannot use " + theirs + " as the cache"
        + " folder of NodeCache imagenet: it exists and Quarry's agent did not create it; move it away or set another"
        + " spec.cache.directory");
    assertThat(kept).exists();
    assertThat(OwnedPaths.owners(cache)).isEmpty();
  }

  @Test
  void mountRecordsSurviveARestartAndTheFolderGoesWhenEmptied() throws Exception {
    OwnedPaths first = OwnedPaths.open(cache, "coco");
    first.recordMount(Path.of("/mnt/quarry/coco"));
    first.recordMount(Path.of("/mnt/quarry/val"));
    first.forgetMount(Path.of("/mnt/quarry/val"));
    OwnedPaths second = OwnedPaths.open(cache, "coco");
    assertThat(second.mountPoints()).containsExactly(Path.of("/mnt/quarry/coco"));
    assertThat(OwnedPaths.owners(cache)).containsExactly("coco");
    Files.writeString(second.copies().image("coco"), "copy");
    second.removeFolder();
    assertThat(cache.resolve("coco")).doesNotExist();
  }

  @Test
  void aFolderWithSomethingSomeoneElsePutInsideIsKept() throws Exception {
    OwnedPaths owned = OwnedPaths.open(cache, "coco");
    Path foreign = Files.writeString(cache.resolve("coco/notes.txt"), "mine");
    owned.removeFolder();
    assertThat(foreign).hasContent("mine");
    assertThatThrownBy(() -> OwnedPaths.open(cache, "../etc")).hasMessage("Invalid owner: ../etc (must be a"
        + " NodeCache name)");
  }
}
