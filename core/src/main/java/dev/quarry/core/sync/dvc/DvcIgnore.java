package dev.quarry.core.sync.dvc;

import dev.quarry.core.sync.local.IgnoreRules;
import dev.quarry.core.text.Utf8File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What DVC 3 leaves out when it hashes a folder it tracks, as rules on the folder's paths: its defaults ({@code .git},
 * {@code .hg} and {@code .dvc} folders, and a {@code .git} file, at any depth), then the rules of the
 * {@code .dvcignore} of every folder from the DVC project's top (the nearest folder above that holds {@code .dvc/})
 * down to the folder's parent, each relative to its own folder, a deeper file's after a higher one's, so that its
 * rules win. DVC reads the lines stripped of spaces at both ends, in gitignore's syntax. A {@code .dvcignore} inside
 * the folder DVC refuses ("should not be in collected dir path"), and so does {@link DvcStatus}. A {@code .dvcignore}
 * that is a symbolic link is followed, as DVC follows it. Outside a DVC project only the defaults apply.
 */
public final class DvcIgnore {
  public static final String FILE_NAME = ".dvcignore";
  /** The most bytes a .dvcignore may hold: it may come with a cloned project, so it is read bounded. */
  private static final int MAX_BYTES = 1 << 20;
  private static final List<String> DEFAULTS = List.of(".hg/", ".git/", ".git", ".dvc/");

  private DvcIgnore() {}

  /** The rules DVC applies to the paths of {@code folder}. */
  public static IgnoreRules of(Path folder) throws IOException {
    IgnoreRules rules = IgnoreRules.parse(DEFAULTS, "DVC's defaults", "");
    Path inside = folder.toAbsolutePath().normalize();
    Path top = projectTop(inside);
    if (top == null) {
      return rules;
    }
    List<Path> above = new ArrayList<>();
    for (Path dir = inside.getParent(); dir != null && dir.startsWith(top); dir = dir.getParent()) {
      above.addFirst(dir);
    }
    for (Path dir : above) {
      Path file = dir.resolve(FILE_NAME);
      Path readable = regularFile(file);
      if (readable != null) {
        List<String> lines = Utf8File.read(readable, MAX_BYTES, FILE_NAME, FILE_NAME).lines().map(String::strip)
            .toList();
        rules = rules.then(IgnoreRules.parse(lines, file.toString(), dir.relativize(inside) + "/"));
      }
    }
    return rules;
  }

  /**
   * The regular file to read a {@code .dvcignore}'s rules from: itself, or the file a symbolic link to one leads to
   * (DVC follows it); null when there is none. Anything else (a folder, a link to no regular file) is refused: its
   * rules are never skipped silently.
   */
  private static Path regularFile(Path file) throws IOException {
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return file;
    }
    if (Files.isSymbolicLink(file) && Files.isRegularFile(file)) {
      return file.toRealPath();
    }
    throw new IllegalArgumentException("Invalid " + FILE_NAME + ": " + file + " (must be a regular file or a"
        + " symbolic link to one)");
  }

  /** The nearest folder above {@code folder} that holds a {@code .dvc} folder, or null. */
  private static Path projectTop(Path folder) {
    for (Path dir = folder.getParent(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve(".dvc"), LinkOption.NOFOLLOW_LINKS)) {
        return dir;
      }
    }
    return null;
  }
}
