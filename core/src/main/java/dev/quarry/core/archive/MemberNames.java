package dev.quarry.core.archive;

import dev.quarry.core.text.Printable;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** The rules every reader applies to member names, so that no name escapes the dataset's root. */
public final class MemberNames {
  private MemberNames() {}

  /**
   * Decodes a raw name as UTF-8; a name that is not valid UTF-8 is refused (WebDataset keys are text, and a lossy
   * decoding could merge two different names).
   */
  public static String decode(String shard, byte[] raw) throws ArchiveException {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(raw))
          .toString();
    } catch (CharacterCodingException e) {
      throw ArchiveException.ofMember(shard, Printable.hex(raw),
          "its name is not valid UTF-8 (rename it in the source archive)");
    }
  }

  /**
   * The name as Quarry keeps it: a leading {@code ./} is dropped (GNU tar writes it for {@code tar -cf x.tar .});
   * absolute names, {@code ..} components, empty components and NUL characters are refused.
   */
  public static String checked(String shard, String name) throws ArchiveException {
    String clean = name;
    while (clean.startsWith("./")) {
      clean = clean.substring(2);
    }
    if (clean.isEmpty()) {
      throw ArchiveException.ofMember(shard, "'" + name + "'", "the name is empty");
    }
    if (clean.startsWith("/")) {
      throw ArchiveException.ofMember(shard, name, "absolute names are not allowed (names must be relative)");
    }
    if (clean.indexOf('\0') >= 0) {
      throw ArchiveException.ofMember(shard, name, "the name contains a NUL character");
    }
    String[] components = clean.split("/", -1);
    for (int i = 0; i < components.length; i++) {
      String component = components[i];
      if (component.equals("..")) {
        throw ArchiveException.ofMember(shard, name, "names must not contain '..' (it would escape the dataset)");
      }
      // a//b and a/./b name the same file as a/b on disk but another record key: refuse them. A directory's trailing
      // '/' leaves one empty last component, which is fine.
      if (component.equals(".") || (component.isEmpty() && i < components.length - 1)) {
        throw ArchiveException.ofMember(shard, name, "names must not have empty or '.' components (write a/b,"
            + " not a//b or a/./b)");
      }
    }
    return clean.endsWith("/") ? clean.substring(0, clean.length() - 1) : clean;
  }
}
