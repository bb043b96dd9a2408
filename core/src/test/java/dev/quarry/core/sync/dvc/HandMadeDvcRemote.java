package dev.quarry.core.sync.dvc;

import dev.quarry.core.store.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/** A DVC 3 remote written by hand under a prefix of a store, as DVC lays it out, or as a hostile one could. */
final class HandMadeDvcRemote {
  private final ObjectStore store;
  private final String prefix;

  HandMadeDvcRemote(ObjectStore store, String prefix) {
    this.store = store;
    this.prefix = prefix;
  }

  static String md5(byte[] data) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
  }

  /** Stores a file as DVC does; returns its md5. */
  String file(String content) throws Exception {
    byte[] data = content.getBytes(StandardCharsets.UTF_8);
    String md5 = md5(data);
    store.put(new DvcHash(md5, false).key(prefix), data);
    return md5;
  }

  /** Stores other bytes under the key of {@code md5}, as a corrupt remote would hold them. */
  void corrupt(String md5, String content) throws Exception {
    store.put(new DvcHash(md5, false).key(prefix), content.getBytes(StandardCharsets.UTF_8));
  }

  /** Stores a .dir listing of these JSON entries; returns its hash. */
  DvcHash listing(String json) throws Exception {
    byte[] data = json.getBytes(StandardCharsets.UTF_8);
    DvcHash hash = new DvcHash(md5(data), true);
    store.put(hash.key(prefix), data);
    return hash;
  }

  /**
   * Listings a hostile remote could hold, each of one content {@code md5} at paths that must be refused, with what
   * the refusal says: by file count, then the listing's JSON entries and the message.
   */
  static List<Hostile> hostileListings(String md5) {
    return List.of(
        new Hostile(1, entry(md5, "../escape"), "path ../escape could escape its folder (must not have empty, . or .."
            + " components)"),
        new Hostile(1, entry(md5, "/etc/passwd"), "path /etc/passwd is not relative"),
        new Hostile(1, entry(md5, "x/./y"), "could escape its folder"),
        new Hostile(1, entry(md5, "x\\\\..\\\\y"), "is not relative"),
        new Hostile(1, entry(md5, "sub/.quarry/state.db"), "names a sync state folder"),
        new Hostile(2, entry(md5, "x") + ", " + entry(md5, "x/y"), "path x is both a file and a folder"),
        new Hostile(2, entry(md5, "x") + ", " + entry(md5, "x"), "path x is listed twice"));
  }

  record Hostile(int files, String entries, String refusal) {}

  static String entry(String md5, String relpath) {
    return "{\"md5\": \"" + md5 + "\", \"relpath\": \"" + relpath + "\"}";
  }
}
