package dev.quarry.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.fs.ConfinedFolder.Way;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfinedFolderTest {
  @TempDir Path temp;

  @Test
  void namesThatCouldLeaveTheRootAreRefused() {
    ConfinedFolder folder = new ConfinedFolder(temp);
    for (String name : List.of("..", "a/../..", "/etc", "a//b", "a/", ".", "a/./b", "nul\0")) {
      assertThatThrownBy(() -> folder.resolve(name)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Invalid relative path: ");
    }
    assertThat(folder.resolve("a/b..c/.d")).isEqualTo(temp.resolve("a/b..c/.d"));
  }

  @Test
  void aLinkOnTheWayIsReplacedByARealFolderNeverFollowed() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Path root = Files.createDirectories(temp.resolve("root"));
    Files.createSymbolicLink(root.resolve("a"), outside);
    ConfinedFolder folder = new ConfinedFolder(root);

    assertThat(folder.wayTo("a/b/file")).isEqualTo(Way.OPEN);
    Path parent = folder.folder("a/b", false);
    assertThat(Files.isDirectory(root.resolve("a"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    assertThat(parent).isEqualTo(root.resolve("a/b"));
    assertThat(outside).isEmptyDirectory();
    assertThat(folder.wayTo("a/b/file")).isEqualTo(Way.CLEAR);
  }

  @Test
  void aFileOnTheWayBlocksUnlessFilesMayBeReplaced() throws Exception {
    Files.writeString(temp.resolve("f"), "data");
    ConfinedFolder folder = new ConfinedFolder(temp);
    assertThat(folder.wayTo("f/x")).isEqualTo(Way.BLOCKED);
    assertThat(folder.wayTo("f/y/z")).isEqualTo(Way.BLOCKED);
    assertThatThrownBy(() -> folder.folder("f/y", false)).hasMessage("Cannot create folder " + temp.resolve("f")
        + ": a file is in the way (pull with deleteExtra to replace it)");
    assertThat(temp.resolve("f")).hasContent("data");
    folder.folder("f/y", true);
    assertThat(temp.resolve("f/y")).isDirectory();
  }

  @Test
  void emptyFoldersItCreatedAreRemovedOnRequestAndOthersStay() throws Exception {
    Files.createDirectories(temp.resolve("mine"));
    ConfinedFolder folder = new ConfinedFolder(temp);
    folder.folder("mine/new/deeper", false);
    folder.folder("kept", false);
    Files.writeString(temp.resolve("kept/file"), "written");
    folder.deleteEmptyCreated();
    assertThat(temp.resolve("mine")).isEmptyDirectory();
    assertThat(temp.resolve("kept/file")).exists();
  }
}
