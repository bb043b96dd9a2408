package dev.quarry.core.sync.cas;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One object of the {@code trees/} key space: a manifest of entries (a whole folder's, or one chunk of a large
 * folder's) or a chunk index. Gc, leases and push handle trees at this grain: each names other trees (a manifest its
 * folders, an index its chunks) and blobs (a manifest its files).
 *
 * @param leaf the manifest, or null for an index
 * @param index the index, or null for a manifest
 */
public record TreeObject(Manifest leaf, ChunkIndex index) {
  public TreeObject {
    if ((leaf == null) == (index == null)) {
      throw new IllegalArgumentException("A tree object is a manifest or an index");
    }
  }

  public static TreeObject of(Manifest leaf) {
    return new TreeObject(leaf, null);
  }

  public static TreeObject of(ChunkIndex index) {
    return new TreeObject(null, index);
  }

  /**
   * Parses the bytes of either format; the caller has verified them against their digest. Refuses an unknown format
   * ("a newer Quarry wrote it?").
   */
  public static TreeObject decode(byte[] data) {
    return ChunkIndex.claims(data) ? of(ChunkIndex.decode(data)) : of(Manifest.decode(data));
  }

  /** Every object of these folders, by digest. */
  public static Map<Digest, TreeObject> byDigest(Collection<Manifest> folders) {
    Map<Digest, TreeObject> objects = new HashMap<>();
    for (Manifest folder : folders) {
      folder.objects().forEach(object -> objects.putIfAbsent(object.digest(), object));
    }
    return objects;
  }

  public boolean isIndex() {
    return index != null;
  }

  public Digest digest() {
    return leaf != null ? leaf.digest() : index.digest();
  }

  public byte[] encoded() {
    return leaf != null ? leaf.encoded() : index.encoded();
  }

  public int encodedLength() {
    return leaf != null ? leaf.encodedLength() : index.encodedLength();
  }

  public long files() {
    return leaf != null ? leaf.files() : index.files();
  }

  public long bytes() {
    return leaf != null ? leaf.bytes() : index.bytes();
  }

  /** The trees it names: a manifest's folders, an index's chunks. */
  public List<Digest> trees() {
    List<Digest> trees = new ArrayList<>();
    if (leaf != null) {
      leaf.entries().stream().filter(TreeEntry::isDirectory).forEach(entry -> trees.add(entry.digest()));
    } else {
      index.chunks().forEach(chunk -> trees.add(chunk.digest()));
    }
    return trees;
  }

  /** The file contents it names (a manifest's files; none for an index). */
  public List<Digest> blobs() {
    return leaf == null ? List.of() : leaf.entries().stream().filter(TreeEntry::isFile).map(TreeEntry::digest)
        .toList();
  }
}
