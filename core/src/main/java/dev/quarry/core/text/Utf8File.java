package dev.quarry.core.text;

import dev.quarry.core.store.LimitedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * A small text file that may have come with a cloned folder (a {@code .quarryignore}, a folder's Quarry config):
 * read without following a link at its name, bounded, and strictly UTF-8. The one such read: its refusals are one
 * line naming the file.
 */
public final class Utf8File {
  private Utf8File() {}

  /**
   * The text of {@code file}, of at most {@code maxBytes} (a whole number of MiB). {@code kind} names what the file
   * is in messages ("a .quarryignore" may hold ...), {@code name} what is invalid ("Invalid config: ...").
   */
  public static String read(Path file, int maxBytes, String kind, String name) throws IOException {
    byte[] bytes;
    try (InputStream in = new LimitedInputStream(Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS), maxBytes,
        "Cannot read " + file + ": it is larger than " + (maxBytes >> 20) + " MiB, more than a " + kind
            + " may hold")) {
      bytes = in.readAllBytes();
    } catch (LimitedInputStream.TooLargeException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("Invalid " + name + ": " + file + " (must be UTF-8 text)", e);
    }
  }
}
