package dev.quarry.core.sync.dvc;

import dev.quarry.core.store.LimitedInputStream;
import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.store.ObjectInfo;
import dev.quarry.core.store.ObjectStore;
import dev.quarry.core.sync.cas.Digest;
import dev.quarry.core.sync.cas.Manifest;
import dev.quarry.core.sync.remote.MissingObjectException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The version one {@code .dvc} file names, as its DVC 3 remote holds it (docs/formats.md, "DVC layouts, as read"):
 * the {@code .dir} listing and each file's content under {@code files/md5/}. Nothing read is trusted: the listing is
 * read bounded by what its {@code nfiles} allows and refused unless it hashes to its md5; every content is read
 * bounded by the size the .dvc file declares for the whole version (a .dvc file without one is refused), each object
 * and all of them together (a running total: a .dir listing names no sizes), or, for a version named by its md5 alone
 * ({@code import-dvc --md5}), each object by its size from a HEAD; and refused unless its bytes hash to the md5 it is named by. Import,
 * status and pull all read a DVC remote here; nothing is ever written to it.
 */
public final class DvcRemote {
  /** A listing entry costs about this much memory through an import or pull. */
  private static final long BYTES_PER_FILE = 1024;
  /** The most bytes one listing entry may take in a .dir object: an md5, a relpath of up to 4 KiB, the JSON. */
  private static final long BYTES_PER_LISTED_FILE = 4200;

  private final ObjectStore store;
  private final String prefix;
  private final DvcFile source;
  private final String action;
  /** Bytes read from the remote so far, by every read: never more than the .dvc file declares in all. */
  private final AtomicLong bytesRead = new AtomicLong();

  /**
   * {@code prefix}: the remote's root in {@code store} (its url in .dvc/config); {@code action}: what the caller
   * does, for messages ("import", "pull").
   */
  public DvcRemote(ObjectStore store, String prefix, DvcFile source, String action) {
    this.store = store;
    this.prefix = prefix;
    this.source = source;
    this.action = action;
  }

  public DvcFile source() {
    return source;
  }

  /** The remote's root, as a URL. */
  public String url() {
    return store.url(prefix);
  }

  /** The files of the version: its .dir listing's entries, or the one file a .dvc file of a file tracks. */
  public List<DirListing.Entry> files() throws IOException {
    return source.hash().isDir() ? readListing().entries()
        : List.of(new DirListing.Entry(fileName(), source.hash().md5()));
  }

  /** The .dir listing, read bounded and checked against its md5 before it is parsed. */
  private DirListing readListing() throws IOException {
    long maxFiles = Runtime.getRuntime().maxMemory() / BYTES_PER_FILE;
    if (source.files() >= 0) {
      maxFiles = Math.min(maxFiles, source.files());
    }
    long limit = Math.min(Manifest.MAX_BYTES, 2 + (maxFiles + 1) * BYTES_PER_LISTED_FILE);
    String key = source.hash().key(prefix);
    byte[] data;
    try (InputStream in = new LimitedInputStream(store.get(key), limit, "Invalid .dir listing " + source.hash()
        + ": " + store.url(key) + " is larger than " + limit + " bytes (more than " + maxFiles
        + " files may take: at most what its .dvc file declares, and what this JVM can hold)")) {
      data = in.readAllBytes();
    } catch (NoSuchObjectException e) {
      throw missing(key);
    }
    String md5 = HexFormat.of().formatHex(md5().digest(data));
    if (!md5.equals(source.hash().md5())) {
      throw new IOException(cannot() + store.url(key) + " is corrupt: its bytes hash to md5 " + md5);
    }
    DirListing listing = DirListing.parse(source.hash(), data, maxFiles);
    if (source.files() >= 0 && listing.entries().size() != source.files()) {
      throw new IllegalArgumentException(cannot() + "its .dvc file declares " + source.files()
          + " files, but its listing holds " + listing.entries().size());
    }
    return listing;
  }

  /** The name a single tracked file gets in the version: its .dvc file's path, last component. */
  private String fileName() {
    if (source.path() == null) {
      throw new IllegalArgumentException(cannot() + "a single file needs its .dvc file (for its name)");
    }
    String name = source.path().substring(source.path().lastIndexOf('/') + 1);
    DirListing.requireRelative("Invalid .dvc file for " + source.hash() + ": ", name);
    return name;
  }

  /**
   * Reads one content into a new file (created with {@code permissions}), bounded and hashed with MD5 and SHA-256 on
   * the way; the file is deleted unless its bytes hash to {@code md5}. Returns the content's SHA-256 digest.
   */
  public Digest download(String md5, Path file, Set<PosixFilePermission> permissions) throws IOException {
    String key = new DvcHash(md5, false).key(prefix);
    long limit = source.size() >= 0 ? source.size() : sizeOf(key);
    MessageDigest md5Hash = md5();
    MessageDigest sha256 = Digest.sha256();
    long length = 0;
    boolean created = false;
    try (InputStream in = new LimitedInputStream(store.get(key), limit, cannot() + store.url(key) + " is larger"
        + " than " + limit + " bytes, " + (source.size() >= 0 ? "the size of the whole folder its .dvc file declares"
        : "its size when it was listed"))) {
      try (OutputStream out = Channels.newOutputStream(Files.newByteChannel(file,
          Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
          PosixFilePermissions.asFileAttribute(permissions)))) {
        created = true;
        byte[] buffer = new byte[256 << 10];
        for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
          if (source.size() >= 0 && bytesRead.addAndGet(read) > source.size()) {
            throw new IllegalArgumentException(cannot() + "the files it lists hold more than the " + source.size()
                + " bytes its .dvc file declares (" + store.url(key) + " was being read)");
          }
          md5Hash.update(buffer, 0, read);
          sha256.update(buffer, 0, read);
          out.write(buffer, 0, read);
          length += read;
        }
      }
      String actual = HexFormat.of().formatHex(md5Hash.digest());
      if (!actual.equals(md5)) {
        throw new IOException(cannot() + store.url(key) + " is corrupt: its bytes hash to md5 " + actual + ", not "
            + md5);
      }
      return Digest.of(sha256, length);
    } catch (NoSuchObjectException e) {
      throw missing(key);
    } catch (IOException | RuntimeException e) {
      if (created) {
        Files.deleteIfExists(file); // never a file this call did not create: CREATE_NEW may have found one
      }
      throw e;
    }
  }

  /** The size of a content the remote holds, or empty when it lacks it (a HEAD). */
  public Optional<Long> sizeIfPresent(String md5) throws IOException {
    return store.head(new DvcHash(md5, false).key(prefix)).map(ObjectInfo::size);
  }

  private long sizeOf(String key) throws IOException {
    return store.head(key).map(ObjectInfo::size).orElseThrow(() -> missing(key));
  }

  private IOException missing(String key) {
    return new MissingObjectException(cannot() + store.url(key) + " is missing from the DVC remote (dvc push it"
        + " first)");
  }

  private String cannot() {
    return "Cannot " + action + " " + source.hash() + ": ";
  }

  /** A local file's MD5, as DVC 3 names content, and its SHA-256 digest, hashed in one read. */
  static LocalMd5s.Hashes hashesOf(Path file) throws IOException {
    MessageDigest md5 = md5();
    MessageDigest sha256 = Digest.sha256();
    long length = 0;
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buffer = new byte[256 << 10];
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        md5.update(buffer, 0, read);
        sha256.update(buffer, 0, read);
        length += read;
      }
    }
    return new LocalMd5s.Hashes(HexFormat.of().formatHex(md5.digest()), Digest.of(sha256, length));
  }

  static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot hash: this JVM has no MD5", e);
    }
  }
}
