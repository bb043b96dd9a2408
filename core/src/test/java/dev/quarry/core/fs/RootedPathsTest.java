package dev.quarry.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quarry.core.fs.RootedPaths.KnownMounts;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RootedPathsTest {
  @TempDir Path temp;

  @Test
  void missingFoldersAreCreatedWithMode0755UnderTheRoot() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root"));
    RootedPaths paths = new RootedPaths(List.of(root));
    Path made = paths.folder(root.resolve("a/b"), KnownMounts.NONE_OWN);
    assertThat(made).isEqualTo(root.resolve("a/b")).isDirectory();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("a"))))
        .isEqualTo("rwxr-xr-x");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(made))).isEqualTo("rwxr-xr-x");
    assertThat(paths.folder(root, KnownMounts.NONE_OWN)).isEqualTo(root);
  }

  @Test
  void aSymbolicLinkOnTheWayIsRefusedNeverFollowed() throws Exception {
    Path outside = Files.createDirectories(temp.resolve("outside"));
    Path root = Files.createDirectories(temp.resolve("root"));
    Files.createSymbolicLink(root.resolve("old"), outside);
    Files.writeString(outside.resolve("image.sqfs"), "x");
    RootedPaths paths = new RootedPaths(List.of(root));

    assertThatThrownBy(() -> paths.folder(root.resolve("old/images"), KnownMounts.NONE_OWN))
        .hasMessage("Cannot use " + root.resolve("old/images") + ": " + root.resolve("old") + " is a symbolic link,"
            + " which is never followed under the roots the cluster admin allows");
    assertThat(outside.resolve("images")).doesNotExist();
    assertThatThrownBy(() -> paths.existing(root.resolve("old/image.sqfs"), KnownMounts.NONE_OWN))
        .hasMessageContaining(root.resolve("old") + " is a symbolic link");
    Files.createSymbolicLink(root.resolve("last.sqfs"), outside.resolve("image.sqfs"));
    assertThatThrownBy(() -> paths.existing(root.resolve("last.sqfs"), KnownMounts.NONE_OWN))
        .as("the last component too").hasMessageContaining(root.resolve("last.sqfs") + " is a symbolic link");
  }

  @Test
  void aPathOutsideTheRootsOrNotNormalizedIsRefused() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root"));
    RootedPaths paths = new RootedPaths(List.of(root, temp.resolve("other")));
    assertThatThrownBy(() -> paths.folder(temp.resolve("rooted"), KnownMounts.NONE_OWN))
        .hasMessage("Cannot use " + temp.resolve("rooted") + ": it is not under " + root + " or "
            + temp.resolve("other") + ", the roots the cluster admin allows");
    assertThatThrownBy(() -> paths.folder(Path.of(root + "/a/../../etc"), KnownMounts.NONE_OWN))
        .hasMessage("Cannot use " + root + "/a/../../etc: it is not a normalized absolute path");
    assertThat(temp.resolve("rooted")).doesNotExist();
  }

  @Test
  void existingNeedsEveryComponentAndAFileOnlyAtTheEnd() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root"));
    Files.writeString(Files.createDirectories(root.resolve("images")).resolve("a.sqfs"), "x");
    RootedPaths paths = new RootedPaths(List.of(root));
    assertThat(paths.existing(root.resolve("images/a.sqfs"), KnownMounts.NONE_OWN)).isRegularFile();
    assertThatThrownBy(() -> paths.existing(root.resolve("images/b.sqfs"), KnownMounts.NONE_OWN))
        .isInstanceOf(NoSuchFileException.class);
    assertThatThrownBy(() -> paths.existing(root.resolve("images/a.sqfs/x"), KnownMounts.NONE_OWN))
        .hasMessage("Cannot use " + root.resolve("images/a.sqfs/x") + ": " + root.resolve("images/a.sqfs")
            + " is not a folder");
    assertThatThrownBy(() -> paths.folder(root.resolve("images/a.sqfs"), KnownMounts.NONE_OWN))
        .hasMessageEndingWith("is not a folder");
    assertThat(Files.isDirectory(root.resolve("images"), LinkOption.NOFOLLOW_LINKS)).isTrue();
  }

  @Test
  void aMountPointIsPassedOnlyWhenTheCallerMadeIt() throws Exception {
    Path root = Files.createDirectories(temp.resolve("root"));
    Path point = Files.createDirectories(root.resolve("images/pets"));
    RootedPaths paths = new RootedPaths(List.of(root));
    // The mount table lists it (a bind mount on the same file system has no other device to tell it by).
    assertThatThrownBy(() -> paths.folder(point.resolve("inner"), new KnownMounts(Set.of(point), p -> false)))
        .hasMessage("Cannot use " + point.resolve("inner") + ": " + point + " is a mount this agent did not make"
            + " (an image left mounted by an agent that is gone, or a mount made by hand); unmount it");
    assertThat(paths.folder(point, new KnownMounts(Set.of(point), point::equals))).isEqualTo(point);
  }
}
