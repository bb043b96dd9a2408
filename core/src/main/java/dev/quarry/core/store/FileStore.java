package dev.quarry.core.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Objects as regular files under a root directory: the key is the '/'-joined path relative to the root. Writes go to a
 * temp file named {@value #UPLOAD_PREFIX}... in the target's directory, are fsynced, and are renamed atomically over
 * the target, so readers see the whole object or none; listings never show the temp files. A temp file a killed
 * writer left (unwritten for {@link #ABANDONED_AFTER}) is removed by the next listing that passes it or the store's
 * first write into its directory. Directories are created as needed and never deleted.
 *
 * <p>The etag is the hex size and modification time in nanoseconds ({@code 1f40-17d2c3...}): cheap, and it changes
 * whenever the file is rewritten, but it is not a content hash. Requests are counted as S3 would count them: one per
 * head, get, list page, put or delete, and one PUT per committed upload.
 */
public final class FileStore implements ObjectStore {
  /** The name prefix of the temp files of writes in progress; keys may not use it. */
  public static final String UPLOAD_PREFIX = ".quarry-upload-";
  /**
   * How long a temp file may go unwritten before it counts as left by a killed writer. Removing a live writer's temp
   * by mistake costs nothing worse than that write failing: its rename finds no file.
   */
  public static final Duration ABANDONED_AFTER = Duration.ofHours(24);

  /** What a file system without hard links answers a link with (EPERM on FAT, EOPNOTSUPP elsewhere). */
  private static final Set<String> LINKS_REFUSED = Set.of("Operation not permitted", "Operation not supported");

  private final Path root;
  private final String rootUrl;
  private final boolean synced;
  private final Linker linker;
  private final RequestCounts requests = new RequestCounts();
  /** The directories this store has written into, and so swept of abandoned temp files. */
  private final Set<Path> swept = ConcurrentHashMap.newKeySet();

  /** A store rooted at {@code root}, which need not exist yet; relative roots resolve against the working directory. */
  public FileStore(Path root) {
    this(root, true);
  }

  /**
   * As {@link #FileStore(Path)}, but writes are not fsynced: still whole or absent to readers (the rename), though a
   * crash of the machine may lose them. For data that does not outlive its process, such as the scratch of a local
   * sort, which is removed when it ends and started over when it is run again: its 70 or so small writes each waited
   * for the disk, twice, while the output's shards were being written to it.
   */
  public static FileStore unsynced(Path root) {
    return new FileStore(root, false);
  }

  private FileStore(Path root, boolean synced) {
    this(root, synced, Files::createLink);
  }

  /** Makes a hard link {@code link} to {@code existing}; a test stands in for a file system without links. */
  @FunctionalInterface
  interface Linker {
    void link(Path link, Path existing) throws IOException;
  }

  FileStore(Path root, boolean synced, Linker linker) {
    this.linker = linker;
    this.synced = synced;
    this.root = root.toAbsolutePath().normalize();
    String path = this.root.toString();
    this.rootUrl = "file://" + path + (path.endsWith("/") ? "" : "/");
  }

  public Path root() {
    return root;
  }

  @Override
  public boolean isLocal() {
    return true;
  }

  /** Whether writes wait until their bytes are on disk: false for an {@link #unsynced} store. */
  public boolean synced() {
    return synced;
  }

  @Override
  public Optional<ObjectInfo> head(String key) throws IOException {
    Path path = path(key);
    requests.count(RequestKind.HEAD);
    try {
      BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
      return attributes.isRegularFile() ? Optional.of(info(key, attributes)) : Optional.empty();
    } catch (IOException e) {
      if (isMissing(path, e)) {
        return Optional.empty();
      }
      throw failure("read", key, e);
    }
  }

  @Override
  public InputStream get(String key) throws IOException {
    Path path = path(key);
    requests.count(RequestKind.GET);
    FileChannel channel = openForReading(key, path);
    return new FileRangeStream(channel, url(key), 0, size(key, channel));
  }

  @Override
  public InputStream getRange(String key, long offset, long length) throws IOException {
    Path path = path(key);
    ObjectKeys.checkRange(offset, length);
    requests.count(RequestKind.GET);
    FileChannel channel = openForReading(key, path);
    long size = size(key, channel);
    if (offset + length > size) {
      channel.close();
      throw ObjectKeys.rangeBeyondEnd(url(key), offset, length, size);
    }
    return new FileRangeStream(channel, url(key), offset, offset + length);
  }

  /**
   * The file opened once, its size read once, and each range read from it with positional reads, which share it
   * safely. A file replaced meanwhile is still read as it was opened; one cut short fails the read that passes its
   * end ({@link FileRangeStream}).
   */
  @Override
  public RangeReads rangeReads(String key) throws IOException {
    Path path = path(key);
    FileChannel channel = openForReading(key, path);
    long size = size(key, channel);
    String url = url(key);
    return new RangeReads() {
      @Override
      public InputStream open(long offset, long length) throws IOException {
        ObjectKeys.checkRange(offset, length);
        requests.count(RequestKind.GET);
        if (offset + length > size) {
          throw ObjectKeys.rangeBeyondEnd(url, offset, length, size);
        }
        return FileRangeStream.sharing(channel, url, offset, offset + length);
      }

      @Override
      public void close() throws IOException {
        channel.close();
      }
    };
  }

  @Override
  public ObjectStart getStart(String key, int maxLength) throws IOException {
    Path path = path(key);
    ObjectKeys.checkStartLength(maxLength);
    requests.count(RequestKind.GET);
    try (FileChannel channel = openForReading(key, path)) {
      long size = size(key, channel);
      int length = (int) Math.min(maxLength, size);
      try (InputStream in = new FileRangeStream(channel, url(key), 0, length)) {
        return new ObjectStart(in.readNBytes(length), size);
      }
    }
  }

  private FileChannel openForReading(String key, Path path) throws IOException {
    try {
      if (Files.isDirectory(path)) {
        throw new NoSuchObjectException(url(key));
      }
      return FileChannel.open(path, StandardOpenOption.READ);
    } catch (NoSuchObjectException e) {
      throw e;
    } catch (IOException e) {
      if (isMissing(path, e)) {
        throw new NoSuchObjectException(url(key));
      }
      throw failure("read", key, e);
    }
  }

  private long size(String key, FileChannel channel) throws IOException {
    try {
      return channel.size();
    } catch (IOException e) {
      channel.close();
      throw failure("read", key, e);
    }
  }

  @Override
  public void put(String key, byte[] data) throws IOException {
    written(key, data, (temp, path) -> {
      publish(temp, path);
      return true;
    });
  }

  /**
   * Written to a temp file, then linked to its name, which fails when the name exists (a rename would replace it). On
   * a file system without hard links (FAT, exFAT) a rename that refuses an existing name stands in: the JDK looks,
   * then renames, so two writers at the very same moment may both win there, as with a store that ignores the
   * condition.
   */
  @Override
  public boolean putIfAbsent(String key, byte[] data) throws IOException {
    return written(key, data, (temp, path) -> {
      try {
        if (!placedIfAbsent(temp, path)) {
          return false;
        }
      } finally {
        Files.deleteIfExists(temp); // the link's other name, or the temp refused a rename
      }
      syncFolder(path);
      return true;
    });
  }

  /** Puts a written temp file at its object's name: whether it was put there. */
  @FunctionalInterface
  private interface Placement {
    boolean place(Path temp, Path path) throws IOException;
  }

  /** A small object written to a temp file next to its name, then placed there: one PUT. */
  private boolean written(String key, byte[] data, Placement placement) throws IOException {
    Path path = path(key);
    requests.count(RequestKind.PUT);
    Path temp = null;
    try {
      temp = writtenTemp(path, data);
      return placement.place(temp, path);
    } catch (IOException e) {
      deleteQuietly(temp);
      throw failure("write", key, e);
    }
  }

  /** Links {@code temp} to {@code path} unless something is there (false then); renames where links are refused. */
  private boolean placedIfAbsent(Path temp, Path path) throws IOException {
    try {
      linker.link(path, temp);
      return true;
    } catch (FileAlreadyExistsException exists) {
      return wonAnyway(path, temp);
    } catch (FileSystemException refused) {
      if (!LINKS_REFUSED.contains(refused.getReason())) {
        throw refused;
      }
    } catch (UnsupportedOperationException unsupported) {
      // a file system provider without links: renamed below, as where links are refused
    }
    try {
      Files.move(temp, path);
      return true;
    } catch (FileAlreadyExistsException exists) {
      return wonAnyway(path, temp);
    }
  }

  /**
   * Whether a write if absent that found {@code path} there won all the same: when its own file is there (NFS may
   * answer a link it made EEXIST, its first reply lost). A folder there is an error, as for {@link #put}, not an
   * object that is there: a caller that looks again would find none, and write again, forever.
   */
  private static boolean wonAnyway(Path path, Path temp) throws IOException {
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileSystemException(path.toString(), null, "Is a directory");
    }
    return Files.exists(temp, LinkOption.NOFOLLOW_LINKS) && Files.isSameFile(path, temp);
  }

  @Override
  public ObjectUpload upload(String key) throws IOException {
    return upload(key, null);
  }

  /**
   * Writes whole buffers of {@code buffer} (null: none) with O_DIRECT where the file system takes it (ext4, xfs;
   * not every tmpfs), the rest through the page cache as usual; the commit fsyncs either way.
   */
  @Override
  public ObjectUpload upload(String key, ByteBuffer buffer) throws IOException {
    Path path = path(key);
    if (buffer != null) {
      FileUpload.checkDirectBuffer(buffer);
    }
    Path temp = null;
    try {
      temp = createTemp(path);
      return new FileUpload(this, key, path, temp, FileChannel.open(temp, StandardOpenOption.WRITE), buffer);
    } catch (IOException e) {
      deleteQuietly(temp);
      throw failure("write", key, e);
    }
  }

  /** A new temp file next to {@code target} holding {@code data}, forced to the disk unless the store is unsynced. */
  private Path writtenTemp(Path target, byte[] data) throws IOException {
    Path temp = createTemp(target);
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(data);
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      force(channel);
    } catch (IOException e) {
      deleteQuietly(temp);
      throw e;
    }
    return temp;
  }

  /**
   * A new empty temp file next to {@code target}. Made with CREATE_NEW rather than Files.createTempFile, so that the
   * object gets the usual permissions of new files instead of owner-only ones.
   */
  private Path createTemp(Path target) throws IOException {
    Files.createDirectories(target.getParent());
    if (swept.add(target.getParent())) {
      try (DirectoryStream<Path> temps = Files.newDirectoryStream(target.getParent(), UPLOAD_PREFIX + "*")) {
        temps.forEach(this::removeIfAbandoned);
      }
    }
    Path temp = target.resolveSibling(UPLOAD_PREFIX + UUID.randomUUID());
    Files.newByteChannel(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
    return temp;
  }

  /** Deletes {@code temp} if no one has written to it for {@link #ABANDONED_AFTER}; a failure only leaves it. */
  void removeIfAbandoned(Path temp) {
    removeIfUnwrittenFor(temp, ABANDONED_AFTER);
  }

  /** Whether {@code temp} was deleted, no one having written to it for {@code age}; a failure only leaves it. */
  private static boolean removeIfUnwrittenFor(Path temp, Duration age) {
    try {
      BasicFileAttributes attributes = Files.readAttributes(temp, BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS);
      return attributes.isRegularFile()
          && attributes.lastModifiedTime().toInstant().isBefore(Instant.now().minus(age))
          && Files.deleteIfExists(temp);
    } catch (IOException stays) {
      return false; // gone already, or not ours to delete (a read-only store): either way listings never show it
    }
  }

  /** None: a temp file does not name its key, and {@link #createTemp} sweeps the abandoned ones of its folder. */
  @Override
  public int removeUnfinishedUploadsOf(String prefix, Set<String> keys) {
    ObjectKeys.checkPrefix(prefix);
    return 0;
  }

  /** The temp files of uploads in the folders under {@code prefix} (links are not followed). */
  @Override
  public int removeAbandonedUploads(String prefix, Duration olderThan) throws IOException {
    ObjectKeys.checkPrefix(prefix);
    Path folder = prefix.contains("/") ? root.resolve(prefix.substring(0, prefix.lastIndexOf('/'))) : root;
    if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    String namePrefix = prefix.substring(prefix.lastIndexOf('/') + 1);
    int[] removed = {0};
    // Entries come and go while the folder is walked (uploads published or given up by a push running beside a gc):
    // one gone between its listing and its look is skipped. Files.walk failed the whole gc with NoSuchFileException.
    Files.walkFileTree(folder, new java.nio.file.SimpleFileVisitor<>() {
      @Override
      public java.nio.file.FileVisitResult visitFile(Path path, java.nio.file.attribute.BasicFileAttributes attributes) {
        // A temp's name does not tell its key, only its folder: one beside keys the prefix only partly names stays.
        if (path.getFileName().toString().startsWith(UPLOAD_PREFIX)
            && (namePrefix.isEmpty() || root.relativize(path).toString().startsWith(prefix))
            && removeIfUnwrittenFor(path, olderThan)) {
          removed[0]++;
        }
        return java.nio.file.FileVisitResult.CONTINUE;
      }

      @Override
      public java.nio.file.FileVisitResult visitFileFailed(Path path, IOException failure) throws IOException {
        if (failure instanceof java.nio.file.NoSuchFileException) {
          return java.nio.file.FileVisitResult.CONTINUE;
        }
        throw failure;
      }

      @Override
      public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException failure) throws IOException {
        if (failure != null && !(failure instanceof java.nio.file.NoSuchFileException)) {
          throw failure;
        }
        return java.nio.file.FileVisitResult.CONTINUE;
      }
    });
    return removed[0];
  }

  /** Waits until the file's bytes are on disk, unless this store is {@link #unsynced}. */
  void force(FileChannel channel) throws IOException {
    if (synced) {
      channel.force(true);
    }
  }

  /** Renames a complete, fsynced temp file over the target: the moment the object appears whole. */
  void publish(Path temp, Path target) throws IOException {
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    syncFolder(target);
  }

  /** The name of {@code target} lives in its folder: synced too, or a crash could bring back an old object or none. */
  private void syncFolder(Path target) throws IOException {
    if (!synced) {
      return;
    }
    try (FileChannel directory = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
      directory.force(true);
    }
  }

  /** Counts an upload's commit: one PUT, as a small S3 upload is. */
  void countUploadCommit() {
    requests.count(RequestKind.PUT);
  }

  @Override
  public ListPage list(String prefix, String startAfter, int maxKeys) throws IOException {
    checkPrefix(prefix);
    ObjectKeys.checkMaxKeys(maxKeys);
    requests.count(RequestKind.LIST);
    List<ObjectInfo> objects;
    try {
      // One more than asked tells whether another page follows.
      objects = FileTreeListing.list(this, prefix, startAfter, maxKeys + 1);
    } catch (IOException e) {
      throw new IOException("Cannot list " + url(prefix) + ": " + reason(e), e);
    }
    if (objects.size() <= maxKeys) {
      return new ListPage(objects, null);
    }
    List<ObjectInfo> page = objects.subList(0, maxKeys);
    return new ListPage(page, page.getLast().key());
  }

  @Override
  public void delete(String key) throws IOException {
    Path path = path(key);
    requests.count(RequestKind.DELETE);
    try {
      if (!Files.isDirectory(path)) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      if (!isMissing(path, e)) {
        throw failure("delete", key, e);
      }
    }
  }

  @Override
  public String url(String key) {
    return rootUrl + key;
  }

  @Override
  public RequestCounts requests() {
    return requests;
  }

  /** Nothing to release: every operation opens and closes its own files. */
  @Override
  public void close() {}

  /** What a head of {@code key} reports for a file with {@code attributes}: its size, and size and time as etag. */
  public static ObjectInfo info(String key, BasicFileAttributes attributes) {
    long modifiedNanos = attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS);
    String etag = Long.toHexString(attributes.size()) + "-" + Long.toHexString(modifiedNanos);
    return new ObjectInfo(key, attributes.size(), etag, attributes.lastModifiedTime().toInstant());
  }

  /**
   * The file of a key. On top of the rules of every store, a file key may not have empty or "." components (the file
   * would have another key) and its name may not start with {@value #UPLOAD_PREFIX}.
   */
  private Path path(String key) {
    ObjectKeys.checkKey(key);
    String[] components = key.split("/", -1);
    for (String component : components) {
      if (component.isEmpty() || component.equals(".") || component.indexOf('\0') >= 0) {
        throw invalidFileKey(key);
      }
    }
    if (components[components.length - 1].startsWith(UPLOAD_PREFIX)) {
      throw invalidFileKey(key);
    }
    return root.resolve(key);
  }

  private static IllegalArgumentException invalidFileKey(String key) {
    return new IllegalArgumentException("Invalid object key: " + key + " (a file store's keys must not have empty"
        + " or '.' components, NUL characters, or names starting with " + UPLOAD_PREFIX + ")");
  }

  /** A prefix is a directory path plus a name prefix; the directory part follows the rules of file keys. */
  private static void checkPrefix(String prefix) {
    ObjectKeys.checkPrefix(prefix);
    String[] components = prefix.split("/", -1);
    for (int i = 0; i < components.length - 1; i++) {
      if (components[i].isEmpty() || components[i].equals(".")) {
        throw new IllegalArgumentException("Invalid key prefix: " + prefix
            + " (a file store's prefixes must not have empty or '.' directory components)");
      }
    }
    if (prefix.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("Invalid key prefix: " + prefix + " (must not contain NUL characters)");
    }
  }

  /**
   * Whether an IOException means "no such file": the file is absent, or a parent is a regular file (ENOTDIR, which
   * Java reports as a plain FileSystemException).
   */
  private boolean isMissing(Path path, IOException e) {
    if (e instanceof NoSuchFileException) {
      return true;
    }
    if (!(e instanceof FileSystemException)) {
      return false;
    }
    for (Path parent = path.getParent(); parent != null && parent.startsWith(root); parent = parent.getParent()) {
      if (Files.exists(parent)) {
        return !Files.isDirectory(parent);
      }
    }
    return false;
  }

  IOException failure(String action, String key, IOException e) {
    return new IOException("Cannot " + action + " " + url(key) + ": " + reason(e), e);
  }

  /** What went wrong, without repeating the path that the URL already names. */
  static String reason(IOException e) {
    if (e instanceof FileSystemException fileError) {
      String reason = fileError.getReason();
      String kind = e.getClass().getSimpleName();
      return reason != null ? reason : kind + " on " + fileError.getFile();
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  static void deleteQuietly(Path temp) {
    if (temp == null) {
      return;
    }
    try {
      Files.deleteIfExists(temp);
    } catch (IOException ignored) {
      // The original failure matters more; a leftover temp file is never listed.
    }
  }
}
