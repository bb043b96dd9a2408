package dev.quarry.core.cache.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.fs.FileIdentity;
import dev.quarry.core.fs.RootedPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnedPathsTest {
  @TempDir Path cache;
  private RootedPaths roots;

  @BeforeEach
  void setUp() {
    roots = new RootedPaths(List.of(cache));
  }

  @Test
  void aCacheDirectoryReachedThroughALinkIsRefused() throws Exception {
    Path elsewhere = Files.createDirectories(cache.resolve("elsewhere"));
    Path link = Files.createSymbolicLink(cache.resolve("cache"), elsewhere);
    assertThatThrownBy(() -> OwnedPaths.open(roots, link, "coco", "uid-1")).hasMessage("Cannot use " + link + ": " + link
        + " is a symbolic link, which is never followed under the roots the cluster admin allows");
    assertThat(elsewhere).isEmptyDirectory();
  }

  @Test
  void aFolderTheAgentDidNotCreateIsRefusedAndLeftAsItIs() throws Exception {
    Path theirs = Files.createDirectories(cache.resolve("imagenet"));
    Path kept = Files.writeString(theirs.resolve("imagenet.json"), "{}");
    assertThatThrownBy(() -> OwnedPaths.open(roots, cache, "imagenet", "uid-1")).hasMessage("Cannot use " + theirs + " as the cache"
        + " folder of NodeCache imagenet: it exists and Quarry's agent did not create it; move it away or set another"
        + " spec.cache.directory");
    assertThat(kept).exists();
    assertThat(OwnedPaths.owners(cache)).isEmpty();
  }

  @Test
  void theFolderOfAnEarlierNodeCacheOfTheSameNameIsRefused() throws Exception {
    OwnedPaths.open(roots, cache, "coco", "uid-1").recordMount(Path.of("/mnt/quarry/coco"), new FileIdentity(2049, 12));
    assertThatThrownBy(() -> OwnedPaths.open(roots, cache, "coco", "uid-2")).hasMessage("Cannot use "
        + cache.resolve("coco") + " as the cache folder of NodeCache coco: it belongs to an earlier NodeCache of that"
        + " name (UID uid-1); move it away or set another spec.cache.directory");
    assertThat(OwnedPaths.markedUid(cache, "coco")).contains("uid-1");
    assertThat(OwnedPaths.existing(roots, cache, "coco").mountPoints()).containsExactly(Path.of("/mnt/quarry/coco"));
  }

  @Test
  void mountRecordsSurviveARestartAndTheFolderGoesWhenEmptied() throws Exception {
    OwnedPaths first = OwnedPaths.open(roots, cache, "coco", "uid-1");
    first.recordMount(Path.of("/mnt/quarry/coco"), new FileIdentity(2049, 12));
    first.recordMount(Path.of("/mnt/quarry/val"), new FileIdentity(2049, 13));
    first.forgetMount(Path.of("/mnt/quarry/val"));
    OwnedPaths second = OwnedPaths.open(roots, cache, "coco", "uid-1");
    assertThat(second.mountPoints()).containsExactly(Path.of("/mnt/quarry/coco"));
    assertThat(second.mounted(Path.of("/mnt/quarry/coco"), new FileIdentity(2049, 12))).isTrue();
    assertThat(second.mounted(Path.of("/mnt/quarry/coco"), new FileIdentity(2049, 13))).as("another file").isFalse();
    assertThat(OwnedPaths.owners(cache)).containsExactly("coco");
    Files.writeString(second.copies().image("coco"), "copy");
    second.removeFolder();
    assertThat(cache.resolve("coco")).doesNotExist();
  }

  @Test
  void aRecordWrittenBeforeLayersWereRecordedCountsEveryLayerAtItsPointsAsTheOwners() throws Exception {
    OwnedPaths.open(roots, cache, "coco", "uid-1");
    Files.writeString(cache.resolve("coco/mounts.json"), "[\"/mnt/quarry/coco\"]");
    OwnedPaths owned = OwnedPaths.open(roots, cache, "coco", "uid-1");
    assertThat(owned.mounted(Path.of("/mnt/quarry/coco"), new FileIdentity(2049, 12))).isTrue();
    assertThat(owned.mounted(Path.of("/mnt/quarry/val"), new FileIdentity(2049, 12))).isFalse();
    owned.forgetMount(Path.of("/mnt/quarry/coco"));
    assertThat(OwnedPaths.open(roots, cache, "coco", "uid-1").mountPoints()).isEmpty();
  }

  @Test
  void aFolderWithSomethingSomeoneElsePutInsideIsKept() throws Exception {
    OwnedPaths owned = OwnedPaths.open(roots, cache, "coco", "uid-1");
    Path foreign = Files.writeString(cache.resolve("coco/notes.txt"), "mine");
    owned.removeFolder();
    assertThat(foreign).hasContent("mine");
    assertThatThrownBy(() -> OwnedPaths.open(roots, cache, "../etc", "uid-1")).hasMessage("Invalid owner: ../etc (must be a"
        + " NodeCache name)");
  }
}
