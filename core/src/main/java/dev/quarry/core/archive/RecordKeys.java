package dev.quarry.core.archive;

/** WebDataset's rule for which record a member belongs to. */
public final class RecordKeys {
  private RecordKeys() {}

  /**
   * The record key of a member name: the name up to the first dot of its last path component. Members that share
   * a key form one record: {@code a/x.jpg} and {@code a/x.cls} are record {@code a/x}.
   */
  public static String of(String memberName) {
    int slash = memberName.lastIndexOf('/');
    int dot = memberName.indexOf('.', slash + 1);
    return dot < 0 ? memberName : memberName.substring(0, dot);
  }
}
