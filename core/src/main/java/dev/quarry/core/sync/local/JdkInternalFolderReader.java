package dev.quarry.core.sync.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Reads a folder through the JDK's own Unix calls (package {@code sun.nio.fs}, which the runtime opens to this code
 * only when told: {@code Add-Opens: java.base/sun.nio.fs} in the jar's manifest, or {@code --add-opens
 * java.base/sun.nio.fs=ALL-UNNAMED}): readdir on the folder NIO opened, then fstatat of each name into one reused
 * attributes object whose fields (mode, inode, size, mtime) are read directly. Per entry that leaves the name and its
 * {@link FileIdentity}, where the public API makes two paths, an attribute view, an attributes object, the file key
 * and its text, a permission set and a file time (a third of a million-file walk's CPU time, and garbage).
 *
 * <p>Unavailable when the package is not opened or its members differ (another JDK): {@link #available()} is then
 * empty and {@link FolderReader#forThisRuntime()} takes the public reader. A folder with a name that is not UTF-8, and
 * an entry whose fstatat fails, are read the public way, which keeps the path from the listed bytes and throws what
 * NIO throws (a file deleted meanwhile: {@link java.nio.file.NoSuchFileException}).
 */
final class JdkInternalFolderReader implements FolderReader {
  private static final MethodHandle NEW_ATTRIBUTES; // () -> UnixFileAttributes as Object
  private static final MethodHandle FSTATAT; // (dfd, name, flags, attributes)
  private static final MethodHandle READDIR; // (DIR*) -> name, or null at the end
  private static final MethodHandle DESCRIPTOR; // UnixSecureDirectoryStream -> its folder's descriptor
  private static final MethodHandle DIRECTORY; // UnixSecureDirectoryStream -> its DIR*
  private static final MethodHandle MODE;
  private static final MethodHandle INODE;
  private static final MethodHandle SIZE;
  private static final MethodHandle MTIME_SECONDS;
  private static final MethodHandle MTIME_NANOS;
  private static final Class<?> SECURE_STREAM;
  private static final int NO_FOLLOW;
  /** Why the internals cannot be used, or null. */
  private static final String REFUSAL;

  static {
    MethodHandle newAttributes = null;
    MethodHandle fstatat = null;
    MethodHandle readdir = null;
    MethodHandle descriptor = null;
    MethodHandle directory = null;
    MethodHandle[] fields = new MethodHandle[5];
    Class<?> secureStream = null;
    int noFollow = 0;
    String refusal = null;
    try {
      Class<?> attributes = Class.forName("sun.nio.fs.UnixFileAttributes");
      Class<?> dispatcher = Class.forName("sun.nio.fs.UnixNativeDispatcher");
      secureStream = Class.forName("sun.nio.fs.UnixSecureDirectoryStream");
      Class<?> stream = Class.forName("sun.nio.fs.UnixDirectoryStream");
      // Each throws IllegalAccessException unless the package is opened to this code.
      newAttributes = privateIn(attributes).findConstructor(attributes, MethodType.methodType(void.class))
          .asType(MethodType.methodType(Object.class));
      fstatat = privateIn(dispatcher).findStatic(dispatcher, "fstatat",
              MethodType.methodType(void.class, int.class, byte[].class, int.class, attributes))
          .asType(MethodType.methodType(void.class, int.class, byte[].class, int.class, Object.class));
      readdir = privateIn(dispatcher).findStatic(dispatcher, "readdir",
          MethodType.methodType(byte[].class, long.class));
      descriptor = privateIn(secureStream).findGetter(secureStream, "dfd", int.class)
          .asType(MethodType.methodType(int.class, Object.class));
      directory = MethodHandles.filterReturnValue(privateIn(secureStream).findGetter(secureStream, "ds", stream),
              privateIn(stream).findGetter(stream, "dp", long.class))
          .asType(MethodType.methodType(long.class, Object.class));
      String[] names = {"st_mode", "st_ino", "st_size", "st_mtime_sec", "st_mtime_nsec"};
      for (int i = 0; i < names.length; i++) {
        Class<?> type = i == 0 ? int.class : long.class;
        fields[i] = privateIn(attributes).findGetter(attributes, names[i], type)
            .asType(MethodType.methodType(type, Object.class));
      }
      Class<?> constants = Class.forName("sun.nio.fs.UnixConstants");
      noFollow = (int) privateIn(constants).findStaticGetter(constants, "AT_SYMLINK_NOFOLLOW", int.class)
          .invokeExact();
    } catch (Throwable e) { // any failure to find them means: not this JDK's, or not opened to us
      refusal = e.toString();
    }
    NEW_ATTRIBUTES = newAttributes;
    FSTATAT = fstatat;
    READDIR = readdir;
    DESCRIPTOR = descriptor;
    DIRECTORY = directory;
    MODE = fields[0];
    INODE = fields[1];
    SIZE = fields[2];
    MTIME_SECONDS = fields[3];
    MTIME_NANOS = fields[4];
    SECURE_STREAM = secureStream;
    NO_FOLLOW = noFollow;
    REFUSAL = refusal;
  }

  private static MethodHandles.Lookup privateIn(Class<?> type) throws IllegalAccessException {
    return MethodHandles.privateLookupIn(type, MethodHandles.lookup());
  }

  private static final JdkInternalFolderReader INSTANCE = new JdkInternalFolderReader();
  private final PublicFolderReader publicReader = new PublicFolderReader();

  private JdkInternalFolderReader() {}

  /** The reader, where this runtime lets this code use the internals. */
  static Optional<JdkInternalFolderReader> available() {
    return REFUSAL == null ? Optional.of(INSTANCE) : Optional.empty();
  }

  /** Why {@link #available()} is empty (the exception that refused), or null. */
  static String refusal() {
    return REFUSAL;
  }

  @Override
  public Entries read(Path dir, Set<String> leftOut) throws IOException {
    List<byte[]> listed = new ArrayList<>();
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
      if (!SECURE_STREAM.isInstance(stream)) {
        return publicReader.read(dir, leftOut); // no openat on this system: no descriptor to lstat relative to
      }
      int folder = descriptor(stream);
      long entries = directory(stream);
      for (byte[] name = readdir(dir, entries); name != null; name = readdir(dir, entries)) {
        if (isSelfOrParent(name)) {
          continue;
        }
        String text = new String(name, StandardCharsets.UTF_8);
        if (!isUtf8(name, text)) {
          return publicReader.read(dir, leftOut);
        }
        if (!leftOut.contains(text)) {
          listed.add(name);
          names.add(text);
        }
      }
      FileIdentity[] identities = new FileIdentity[listed.size()];
      if (FolderReader.inParallel(identities.length)) { // an attributes object per entry: fstatat writes into it
        IntStream.range(0, identities.length).parallel().forEach(i ->
            identities[i] = lstat(dir, folder, listed.get(i), names.get(i), newAttributes()));
      } else {
        Object attributes = newAttributes();
        for (int i = 0; i < identities.length; i++) {
          identities[i] = lstat(dir, folder, listed.get(i), names.get(i), attributes);
        }
      }
      return new Entries(names.toArray(String[]::new), identities, null);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** The lstat of {@code name} in the open folder; the public way, with NIO's exception, if fstatat fails. */
  private static FileIdentity lstat(Path dir, int folder, byte[] name, String text, Object attributes) {
    try {
      FSTATAT.invokeExact(folder, name, NO_FOLLOW, attributes);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) { // sun.nio.fs.UnixException: gone meanwhile, no permission, ...
      try {
        return FileIdentity.of(dir.resolve(text));
      } catch (IOException thrown) {
        throw new UncheckedIOException(thrown);
      }
    }
    try {
      return FileIdentity.ofStat((int) MODE.invokeExact(attributes), (long) INODE.invokeExact(attributes),
          (long) MTIME_SECONDS.invokeExact(attributes), (long) MTIME_NANOS.invokeExact(attributes),
          (long) SIZE.invokeExact(attributes));
    } catch (Throwable e) {
      throw new IllegalStateException("Cannot read the attributes of " + dir.resolve(text), e);
    }
  }

  private static Object newAttributes() {
    try {
      return (Object) NEW_ATTRIBUTES.invokeExact();
    } catch (Throwable e) {
      throw new IllegalStateException("Cannot make an attributes object", e);
    }
  }

  private static int descriptor(DirectoryStream<Path> stream) {
    try {
      return (int) DESCRIPTOR.invokeExact((Object) stream);
    } catch (Throwable e) {
      throw new IllegalStateException("Cannot read an open folder's descriptor", e);
    }
  }

  private static long directory(DirectoryStream<Path> stream) {
    try {
      return (long) DIRECTORY.invokeExact((Object) stream);
    } catch (Throwable e) {
      throw new IllegalStateException("Cannot read an open folder's stream", e);
    }
  }

  private static byte[] readdir(Path dir, long entries) throws IOException {
    try {
      return (byte[]) READDIR.invokeExact(entries);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) { // sun.nio.fs.UnixException, whose message is strerror's
      throw new IOException("Cannot list the folder " + dir + ": " + e.getMessage(), e);
    }
  }

  private static boolean isSelfOrParent(byte[] name) {
    return name[0] == '.' && (name.length == 1 || (name.length == 2 && name[1] == '.'));
  }

  /** Whether {@code text} (the name decoded) encodes back to the listed bytes: ASCII always does. */
  private static boolean isUtf8(byte[] name, String text) {
    for (byte b : name) {
      if (b < 0) {
        return Arrays.equals(text.getBytes(StandardCharsets.UTF_8), name);
      }
    }
    return true;
  }
}
