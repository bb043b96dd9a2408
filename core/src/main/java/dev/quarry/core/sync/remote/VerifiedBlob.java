package dev.quarry.core.sync.remote;

import dev.quarry.core.store.NoSuchObjectException;
import dev.quarry.core.sync.cas.Digest;
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
import java.util.Set;

/**
 * The one way a blob's bytes leave a remote: read bounded by its digest's size, every byte hashed, and refused
 * ("is corrupt") unless the bytes hash to the digest. Into a file, the file is deleted unless it matches, so a
 * caller that renames it into place afterwards never publishes a wrong byte.
 */
public final class VerifiedBlob {
  private VerifiedBlob() {}

  /** Downloads a blob into a new file (created with {@code permissions}); deletes it unless it matches. */
  public static long toFile(CasRemote remote, Digest digest, Path file, Set<PosixFilePermission> permissions)
      throws IOException {
    try (OutputStream out = Channels.newOutputStream(Files.newByteChannel(file,
        Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
        PosixFilePermissions.asFileAttribute(permissions)))) {
      return copy(remote, digest, out);
    } catch (IOException e) {
      Files.deleteIfExists(file);
      throw e;
    }
  }

  /**
   * Streams a blob to {@code out}, hashing every byte. The bytes are written before the digest can be checked: a
   * caller writing somewhere a reader sees at once (standard output) learns of corruption by the exception only.
   */
  public static long copy(CasRemote remote, Digest digest, OutputStream out) throws IOException {
    String key = remote.layout().blobKey(digest);
    MessageDigest sha256 = Digest.sha256();
    long length = 0;
    try (InputStream in = remote.openBlob(digest)) {
      byte[] buffer = new byte[(int) Math.min(256 << 10, Math.max(8 << 10, digest.size()))];
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        sha256.update(buffer, 0, read);
        out.write(buffer, 0, read);
        length += read;
      }
    } catch (NoSuchObjectException e) {
      throw new IOException(remote.store().url(key) + " is missing from the remote (push the version again)", e);
    }
    Digest actual = Digest.of(sha256, length);
    if (!actual.equals(digest)) {
      throw new IOException(remote.store().url(key) + " is corrupt: its bytes hash to " + actual + ", not " + digest
          + " (push the version again to repair it)");
    }
    return length;
  }
}
