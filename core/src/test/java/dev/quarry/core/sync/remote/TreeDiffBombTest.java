package dev.quarry.core.sync.remote;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.store.FileStore;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.cas.TreeEntry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A diff is bounded by the paths it walks, not only by the changes it finds: a bomb of empty folders is refused. */
class TreeDiffBombTest {
  @TempDir Path temp;

  @Test
  void aBombOfEmptyFoldersIsRefusedBeforeItIsWalkedWhole() throws Exception {
    try (FileStore store = new FileStore(temp)) {
      CasRemote remote = new CasRemote(store, "cas", 4);
      Manifest level = Manifest.of(List.of());
      remote.putManifest(level);
      for (int depth = 0; depth < 14; depth++) { // each level names the one below twice: 2^15 folders in 14 manifests
        level = Manifest.of(List.of(TreeEntry.directory("a", 0755, level.digest(), 0, 0),
            TreeEntry.directory("b", 0755, level.digest(), 0, 0)));
        remote.putManifest(level);
      }
      Manifest empty = Manifest.of(List.of());
      Manifest bomb = level;

      assertThatThrownBy(() -> TreeDiff.compare(TreeDiff.Trees.of(remote), empty.top(), TreeDiff.Trees.of(remote), bomb.top(),
          1000)).hasMessage("Cannot diff: it walks more than 1000 paths, more than this JVM can hold (diff a folder"
              + " of it, or give the JVM more memory)");
    }
  }
}
