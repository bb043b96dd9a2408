package dev.quarry.core.store;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * One bucket (S3) or one root directory (filesystem). Keys are '/'-separated, with no leading '/' and never a ".."
 * component; a malformed key is refused with an IllegalArgumentException "Invalid object key: ...". Thread-safe: used
 * from many virtual threads at once. Every request is counted in {@link #requests()}.
 */
public interface ObjectStore extends AutoCloseable {
  /** HEAD. Empty when the object does not exist. */
  Optional<ObjectInfo> head(String key) throws IOException;

  /** GET of the whole object. Throws {@link NoSuchObjectException} when it is missing. */
  InputStream get(String key) throws IOException;

  /** GET of a whole, small object (a marker, a plan, a key map), closing the stream: its bytes. */
  default byte[] getBytes(String key) throws IOException {
    try (InputStream in = get(key)) {
      return in.readAllBytes();
    }
  }

  /**
   * GET of bytes [offset, offset + length). The range must lie within the object, else an IOException naming the URL
   * and the range; {@link NoSuchObjectException} when the object is missing.
   */
  InputStream getRange(String key, long offset, long length) throws IOException;

  /**
   * Ranged reads of one object, as many as the caller makes until it closes them: every record of an input shard, say.
   * Each is a {@link #getRange}, the default; a local store opens the file once for all of them, where an open, a
   * stat and a close per record cost more than reading its bytes. {@link NoSuchObjectException} when the object is
   * missing (here, or at the first read).
   */
  default RangeReads rangeReads(String key) throws IOException {
    return (offset, length) -> getRange(key, offset, length);
  }

  /** Reads of ranges of one object ({@link #rangeReads}); each as {@link #getRange} reads it. */
  interface RangeReads extends Closeable {
    InputStream open(long offset, long length) throws IOException;

    @Override
    default void close() throws IOException {}
  }

  /**
   * The first {@code maxLength} bytes of an object (at least 1; all of it when it is shorter) and its size, in one
   * request: S3 answers a ranged GET with the object's size, where a HEAD and a GET were two.
   * {@link NoSuchObjectException} when the object is missing.
   */
  ObjectStart getStart(String key, int maxLength) throws IOException;

  /** The first bytes of an object and its size ({@link #getStart}). */
  record ObjectStart(byte[] bytes, long size) {}

  /** A small object in one request. Atomic: readers see the whole object or none. */
  void put(String key, byte[] data) throws IOException;

  /**
   * A small object in one request unless an object is there already (S3's conditional write, If-None-Match: *):
   * false when one is, and then nothing is written. Atomic as {@link #put}. For claims that one writer wins: a store
   * that ignores the condition (an S3-compatible without conditional writes) overwrites and answers true, and an
   * answer lost to the network makes the retry find the writer's own object (false), so a caller stays correct when
   * no one or two win, only slower.
   */
  boolean putIfAbsent(String key, byte[] data) throws IOException;

  /**
   * An object whose bytes, length and SHA-256 are known ({@link HashedContent}), with the least client work: S3 over
   * plain HTTP sends it as one PutObject signed with the given hash, so the bytes are not hashed again; elsewhere it
   * streams like {@link #upload(String)}. Atomic: the object becomes visible whole or not at all.
   */
  default void put(String key, HashedContent content) throws IOException {
    try (ObjectUpload upload = upload(key); InputStream in = content.open()) {
      in.transferTo(upload.stream());
      upload.commit();
    } catch (HashedContent.Unreadable e) {
      throw new IOException("Cannot write " + url(key) + ": " + e.getMessage(), e);
    }
  }

  /**
   * An object whose bytes can be read again from any offset ({@link RangedContent}: local files), with the least
   * memory: S3 sends its parts straight from those bytes, several at once, in parts sized from its length
   * ({@code PartSizes#forLength}), so the upload holds no part whatever the object's size; elsewhere it streams like
   * {@link #upload(String)}. Content that gives fewer or more bytes than its length fails the write. Atomic: the
   * object becomes visible whole or not at all.
   */
  default void put(String key, RangedContent content) throws IOException {
    try (ObjectUpload upload = upload(key);
        InputStream in = HashedContent.LengthMismatch.checking(content.open(0, content.length()), content.length())) {
      in.transferTo(upload.stream());
      upload.commit();
    } catch (HashedContent.Unreadable e) {
      throw new IOException("Cannot write " + url(key) + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether objects are local files: a range read again costs a read of the page cache or the disk, no request, so a
   * local sort reads plain tar inputs where they are rather than holding a copy, and a local file is written in one
   * pass that hashes its bytes as it goes (no {@link #put(String, HashedContent)} that needs the hash first).
   */
  default boolean isLocal() {
    return false;
  }

  /**
   * About the most memory an {@link #upload(String)} of {@code size} bytes holds at once: what a caller that runs
   * uploads side by side counts against its budget. None for a local file.
   */
  default long uploadBufferBytes(long size) {
    return 0;
  }

  /**
   * A streaming upload of unknown length. S3 uploads parts while the caller writes, several in flight; the filesystem
   * writes a temp file and renames it. The object becomes visible only on {@link ObjectUpload#commit()}.
   */
  ObjectUpload upload(String key) throws IOException;

  /**
   * As {@link #upload(String)}, for an object of megabytes or more written in one go: the filesystem writes its whole
   * aligned blocks past the page cache (O_DIRECT) through {@code buffer}, one of {@link DirectWriteBuffers}, which the
   * caller owns and must not touch until the upload is committed or aborted; other stores ignore it.
   */
  default ObjectUpload upload(String key, java.nio.ByteBuffer buffer) throws IOException {
    return upload(key);
  }

  /**
   * One LIST page: objects whose key starts with {@code prefix} and sorts after {@code startAfter} (null: from the
   * start), in UTF-8 binary key order ({@link KeyOrder}), at most {@code maxKeys} (1 to 1000).
   */
  ListPage list(String prefix, String startAfter, int maxKeys) throws IOException;

  /**
   * Every object under {@code prefix}, fetching pages of 1000 lazily as the stream is consumed. A failed page throws
   * UncheckedIOException from the stream.
   */
  default Stream<ObjectInfo> listAll(String prefix) {
    return StreamSupport.stream(new PagedListing(this, prefix), false);
  }

  /** DELETE; deleting a missing object is not an error. */
  void delete(String key) throws IOException;

  /**
   * Removes the uploads under {@code prefix} that a writer started more than {@code olderThan} ago and never finished
   * (the multipart uploads a killed process left on S3, the file store's temp files): no listing shows them, but
   * they take space. Returns how many were removed.
   */
  int removeAbandonedUploads(String prefix, Duration olderThan) throws IOException;

  /**
   * Gives up the unfinished uploads of exactly {@code keys}, all under {@code prefix}, whatever their age: for a
   * writer that knows nothing writes those keys any more (a sort's commit, after every create worker ended), in a
   * folder that may hold others' uploads, which stay. Returns how many were given up. A folder store's temp files do
   * not name their key: it leaves them to its own sweep of temps unwritten for a day, when the folder is next written.
   */
  int removeUnfinishedUploadsOf(String prefix, Set<String> keys) throws IOException;

  /** The URL of a key: s3://bucket/key or file:///root/key. */
  String url(String key);

  /**
   * Live counts of the requests made so far, by kind: each HTTP attempt, retries included. The filesystem counts the
   * same operations so that results are comparable. Take a {@link RequestCounts#snapshot()} to keep numbers.
   */
  RequestCounts requests();

  @Override
  void close() throws IOException;
}
