package dev.quarry.core.sync.pull;

import dev.quarry.core.fs.ConfinedFolder;
import dev.quarry.core.fs.Umask;
import dev.quarry.core.sync.SyncResult;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.cas.TreeEntry;
import dev.quarry.core.sync.cas.TreeObject;
import dev.quarry.core.sync.local.FileIdentity;
import dev.quarry.core.sync.local.PartFiles;
import dev.quarry.core.sync.remote.CasRemote;
import dev.quarry.core.sync.remote.VerifiedBlob;
import dev.quarry.core.sync.remote.VersionPath;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * {@code quarry sync get}: one file or one folder of a version, without the rest. The path is found by reading only
 * the manifests on its way ({@link VersionPath}); a file is one verified blob ({@link VerifiedBlob}), streamed, or
 * written beside its destination as a {@link PartFiles} temporary and renamed over it once verified; a folder is a
 * {@link Pull} of that subtree, with all of a pull's rules (confinement, verification, atomic files, local edits
 * kept unless forced).
 */
public final class Get {
  private Get() {}

  /** What a get found at its path, before anything is written. */
  public record Target(String version, TreeObject root, VersionPath path) {
    public boolean isFolder() {
      return path.isFolder();
    }
  }

  /** Resolves the version (as pull does) and finds the path in it. */
  public static Target find(CasRemote remote, String version, String path) throws IOException {
    TreeObject root = remote.resolveRoot(version);
    return new Target(version, root, VersionPath.find(remote, root, version, path));
  }

  /** Streams a file's bytes to {@code out}; its digest is checked at the end (a mismatch throws). */
  public static long toStream(CasRemote remote, Target target, OutputStream out) throws IOException {
    return VerifiedBlob.copy(remote, requireFile(target).digest(), out);
  }

  /**
   * Writes a file to {@code out}, or into {@code out} under the file's name when {@code out} is a folder: verified,
   * then renamed over the file that stands there (never a folder, and never a symbolic link: unlike cp, which writes
   * through one, get refuses it, so that a planted link can neither be followed nor silently replaced), with the
   * version's mode less the umask.
   * Returns the path written.
   */
  public static Path toFile(CasRemote remote, Target target, Path out) throws IOException {
    TreeEntry entry = requireFile(target);
    Path destination = Files.isDirectory(out, LinkOption.NOFOLLOW_LINKS)
        ? new ConfinedFolder(out).resolve(target.path().name()) : out.toAbsolutePath().normalize();
    if (Files.isSymbolicLink(destination)) {
      throw new IllegalArgumentException("Cannot write " + destination + ": it is a symbolic link (remove it, or name"
          + " where to write)");
    }
    if (Files.isDirectory(destination, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException("Cannot write " + destination + ": a folder is in the way");
    }
    if (!Files.isDirectory(destination.getParent())) {
      throw new IllegalArgumentException("Cannot write " + destination + ": no such folder " + destination.getParent());
    }
    int mode = Umask.apply(entry.mode());
    Path staged = PartFiles.beside(destination);
    VerifiedBlob.toFile(remote, entry.digest(), staged, FileIdentity.permissionSet(mode));
    try {
      Files.setPosixFilePermissions(staged, FileIdentity.permissionSet(mode)); // creating it took the umask's bits
      Files.move(staged, destination, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      Files.deleteIfExists(staged);
      throw e;
    }
    return destination;
  }

  /** Pulls a folder of the version into the session's folder. */
  public static SyncResult folder(SyncSession session, Target target, boolean force) throws IOException {
    if (!target.isFolder()) {
      throw new IllegalArgumentException("Cannot get " + TreeEntry.printable(target.path().path()) + " as a folder:"
          + " it is a " + target.path().entry().type().token());
    }
    return Pull.run(session, new Pull.Options(target.version(), List.of(), false, null, force,
        target.path().path()));
  }

  private static TreeEntry requireFile(Target target) {
    VersionPath path = target.path();
    if (path.isFolder()) {
      throw new IllegalArgumentException("Cannot get " + printablePath(path) + " of " + target.version()
          + " as a file: it is a folder (name a folder to write it into)");
    }
    if (path.entry().isSymlink()) {
      throw new IllegalArgumentException("Cannot get " + printablePath(path) + " of " + target.version()
          + ": it is a symbolic link to " + TreeEntry.printable(path.entry().target()) + " (get its target)");
    }
    return path.entry();
  }

  private static String printablePath(VersionPath path) {
    return path.path().isEmpty() ? "/" : TreeEntry.printable(path.path());
  }
}
