package dev.quarry.core.fs;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.io.file.PathUtils;

/**
 * A local folder for one process's bulky intermediate data (a create worker's gathered shards, a local run's spilled
 * packs and scratch, an import's or a get's temporaries), which can be gigabytes, readable by its owner only. It goes when closed, and also when the process is stopped with Ctrl-C
 * or SIGTERM, through a shutdown hook, since the threads' {@code finally} blocks do not run then. A process killed
 * with SIGKILL cannot clean up: its name carries the host and process id, so that the next folder made under the same
 * parent removes those of processes of this host that no longer run.
 */
public final class WorkFolder implements AutoCloseable {
  private final Path path;
  private final Thread removeAtExit;

  private WorkFolder(Path path) {
    this.path = path;
    this.removeAtExit = new Thread(() -> deleteQuietly(path), "remove " + path.getFileName());
  }

  /**
   * A failure to write {@code what} to a process's own disk, which says what to do when the disk is full: "Cannot
   * keep ... on this worker's disk (No space left on device): give its temporary folder more room".
   */
  public static IOException cannotKeep(String what, IOException e) {
    String reason = String.valueOf(e.getMessage());
    boolean full = reason.contains("No space left on device") || reason.contains("Disk quota exceeded");
    return new IOException("Cannot keep " + what + " on this worker's disk (" + reason + ")"
        + (full ? ": give its temporary folder more room" : ""), e);
  }

  /**
   * {@code out}, a file of a process's own disk, whose write, flush and close failures are {@link #cannotKeep}: a
   * failure to read what is copied into it stays what it is (a duplicate member is not a full disk).
   */
  public static OutputStream keeping(OutputStream out, String what) {
    return new FilterOutputStream(out) {
      @Override
      public void write(int b) throws IOException {
        try {
          out.write(b);
        } catch (IOException e) {
          throw cannotKeep(what, e);
        }
      }

      @Override
      public void write(byte[] bytes, int offset, int length) throws IOException {
        try {
          out.write(bytes, offset, length);
        } catch (IOException e) {
          throw cannotKeep(what, e);
        }
      }

      @Override
      public void flush() throws IOException {
        try {
          out.flush();
        } catch (IOException e) {
          throw cannotKeep(what, e);
        }
      }

      @Override
      public void close() throws IOException {
        try {
          out.close();
        } catch (IOException e) {
          throw cannotKeep(what, e);
        }
      }
    };
  }

  /** A new empty file in {@code folder} of a process's own disk, for {@code what}; a failure is {@link #cannotKeep}. */
  public static Path createTempFile(Path folder, String prefix, String suffix, String what) throws IOException {
    try {
      return Files.createTempFile(folder, prefix, suffix);
    } catch (IOException e) {
      throw cannotKeep(what, e);
    }
  }

  /** Makes {@code <parent>/<prefix><host>-<pid>-<random>}, after removing what dead processes left there. */
  public static WorkFolder create(Path parent, String prefix) throws IOException {
    Files.createDirectories(parent);
    String host = hostName();
    removeAbandoned(parent, prefix, host);
    Path path = parent.resolve(prefix + host + "-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID());
    Files.createDirectory(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    WorkFolder folder = new WorkFolder(path);
    Runtime.getRuntime().addShutdownHook(folder.removeAtExit);
    return folder;
  }

  public Path path() {
    return path;
  }

  /** Removes the folder and everything in it. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(removeAtExit);
    } catch (IllegalStateException shuttingDown) {
      return; // the hook is running or about to, and removes the folder
    }
    delete(path);
  }

  /** Folders of this host's processes that are gone; best effort, as another process may be removing them too. */
  private static void removeAbandoned(Path parent, String prefix, String host) throws IOException {
    Pattern name = Pattern.compile(Pattern.quote(prefix + host + "-") + "(\\d+)-[0-9a-f-]{36}");
    try (Stream<Path> children = Files.list(parent)) {
      for (Path child : children.toList()) {
        Matcher matcher = name.matcher(child.getFileName().toString());
        if (matcher.matches() && !isRunning(Long.parseLong(matcher.group(1))) && Files.isDirectory(child)) {
          deleteQuietly(child);
        }
      }
    }
  }

  private static boolean isRunning(long pid) {
    Optional<ProcessHandle> process = ProcessHandle.of(pid);
    return process.isPresent() && process.get().isAlive();
  }

  /** The host's name (read from the kernel: a DNS lookup may take seconds), reduced to characters safe in a name. */
  private static String hostName() {
    String host;
    try {
      host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
    } catch (IOException | UncheckedIOException e) {
      host = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("localhost");
    }
    return host.replaceAll("[^A-Za-z0-9.]", "_");
  }

  private static void deleteQuietly(Path folder) {
    try {
      delete(folder);
    } catch (UncheckedIOException e) {
      // Left for the next sweep; nothing to report at exit.
    }
  }

  private static void delete(Path folder) {
    try {
      if (Files.exists(folder)) {
        PathUtils.deleteDirectory(folder);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot remove work folder " + folder, e);
    }
  }
}
