package dev.quarry.core.cache.copy;

import dev.quarry.core.json.Json;
import dev.quarry.core.store.Location;
import dev.quarry.core.sync.cas.Digest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.function.LongConsumer;

/**
 * Copies an image from its source (a file or an S3 object) into the cache folder: resumable (a copy in progress of
 * the same source continues where it stopped), capped in bandwidth, hashed while it streams, verified against the
 * declared checksum, and moved to its final name only when whole and verified.
 */
public final class ImageCopier {
  private static final int BUFFER = 4 << 20;

  private final CacheDirectory cache;

  /** Where the bytes of an image's source are read from. */
  @FunctionalInterface
  public interface Source {
    /** Bytes [offset, offset + length) of the source. */
    InputStream range(long offset, long length) throws IOException;

    /** The object {@code location} names. */
    static Source of(Location location) {
      return (offset, length) -> location.store().getRange(location.key(), offset, length);
    }
  }

  public ImageCopier(CacheDirectory cache) {
    this.cache = cache;
  }

  /**
   * Copies {@code source} as image {@code name}; {@code expectedSha256} (lowercase hex) may be null when the image
   * declares none. {@code progress} receives the bytes copied so far.
   *
   * @throws ChecksumMismatchException when the bytes do not hash to {@code expectedSha256}; nothing is kept
   */
  public CopyRecord copy(String name, Source source, SourceIdentity identity, String expectedSha256,
      Bandwidth bandwidth, LongConsumer progress) throws IOException, InterruptedException {
    Path part = cache.part(name);
    MessageDigest sha256 = Digest.sha256();
    long offset = resumableBytes(name, identity, sha256);
    if (offset == 0) {
      Files.deleteIfExists(part);
      CacheDirectory.writeAtomically(cache.partRecord(name), identity);
    }
    progress.accept(offset);
    String actual;
    long size;
    try (FileChannel out = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.APPEND);
        PipelinedDigest hashing = new PipelinedDigest(sha256, BUFFER)) {
      if (offset < identity.size()) {
        try (InputStream in = source.range(offset, identity.size() - offset)) {
          long copied = offset;
          while (true) {
            byte[] buffer = hashing.take();
            int read = in.readNBytes(buffer, 0, buffer.length);
            if (read == 0) {
              hashing.giveBack(buffer);
              break;
            }
            ByteBuffer bytes = ByteBuffer.wrap(buffer, 0, read);
            while (bytes.hasRemaining()) {
              out.write(bytes);
            }
            hashing.submit(buffer, read);
            copied += read;
            progress.accept(copied);
            bandwidth.pass(read);
            if (Thread.interrupted()) {
              throw new InterruptedException("copy of " + name + " interrupted at " + copied + " bytes");
            }
          }
        }
      }
      out.force(true); // durable before it is renamed into place
      size = out.size();
      actual = HexFormat.of().formatHex(hashing.finish());
    }
    if (size != identity.size() || (expectedSha256 != null && !expectedSha256.equals(actual))) {
      cache.delete(name);
      throw new ChecksumMismatchException("Cannot cache image " + name + ": the copy of " + identity.url() + " has "
          + size + " bytes with SHA-256 " + actual + ", expected " + identity.size() + " bytes"
          + (expectedSha256 == null ? "" : " with SHA-256 " + expectedSha256)
          + "; the copy was discarded. Check the image's checksum in the NodeCache, or whether its source changed"
          + " while it was copied");
    }
    CopyRecord record = new CopyRecord(CopyRecord.FORMAT, identity, actual);
    Files.deleteIfExists(cache.record(name));
    Files.move(part, cache.image(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    CacheDirectory.writeAtomically(cache.record(name), record);
    Files.deleteIfExists(cache.partRecord(name));
    return record;
  }

  /** How much of an earlier copy of the same source can be kept; its bytes are hashed into {@code sha256}. */
  private long resumableBytes(String name, SourceIdentity identity, MessageDigest sha256) throws IOException {
    Path part = cache.part(name);
    Path partRecord = cache.partRecord(name);
    if (!Files.exists(part) || !Files.exists(partRecord)) {
      return 0;
    }
    SourceIdentity started;
    try {
      started = Json.read(Files.readAllBytes(partRecord), SourceIdentity.class);
    } catch (IOException e) {
      return 0;
    }
    if (!started.equals(identity) || Files.size(part) > identity.size()) {
      return 0;
    }
    try (InputStream in = Files.newInputStream(part)) {
      byte[] buffer = new byte[BUFFER];
      long total = 0;
      int read;
      while ((read = in.read(buffer)) > 0) {
        sha256.update(buffer, 0, read);
        total += read;
      }
      return total;
    }
  }
}
