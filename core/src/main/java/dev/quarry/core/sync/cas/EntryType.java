package dev.quarry.core.sync.cas;

/** What a manifest entry is; {@link #token()} is how the manifest spells it. */
public enum EntryType {
  FILE("file"),
  DIRECTORY("dir"),
  SYMLINK("symlink");

  private final String token;

  EntryType(String token) {
    this.token = token;
  }

  public String token() {
    return token;
  }

  static EntryType ofToken(String token) {
    for (EntryType type : values()) {
      if (type.token.equals(token)) {
        return type;
      }
    }
    throw new IllegalArgumentException("Invalid entry type: " + TreeEntry.printable(token)
        + " (must be file, dir or symlink)");
  }
}
