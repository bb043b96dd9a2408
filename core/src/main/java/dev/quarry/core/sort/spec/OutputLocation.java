package dev.quarry.core.sort.spec;

import dev.quarry.core.store.ObjectUrl;

/**
 * The folder of a job's output template, and the one rule every name the sort writes there passes: each output
 * shard, manifest and index, whatever template (the job's or a key map's) produced it, must lie in the same store
 * under this folder. Key map templates may be relative to it.
 */
public final class OutputLocation {
  /** The folder name kept for sort scratch: no output name has it as a component, since clean deletes there. */
  public static final String RESERVED_FOLDER = ".quarry-scratch";

  private final String url;
  private final ObjectUrl address;

  private OutputLocation(String url) {
    this.url = url;
    this.address = ObjectUrl.parse(url);
  }

  /** The location of output template {@code template}: its text up to the last '/' before the range. */
  public static OutputLocation of(String template) {
    return new OutputLocation(folder(BraceTemplate.parse(template, true)));
  }

  /**
   * The text of {@code template} up to and including the last '/' before its range; "./" (the working directory)
   * for a template without a folder, a local path like any other.
   */
  static String folder(BraceTemplate template) {
    String prefix = template.prefix();
    return prefix.indexOf('/') < 0 ? "./" : prefix.substring(0, prefix.lastIndexOf('/') + 1);
  }

  /** For a local path: whether it stays in the folder once symlinks are resolved (a link must not lead out). */
  private boolean realPathInside(ObjectUrl name) {
    if (!name.isFile()) {
      return true;
    }
    String folder = ScratchOverlap.real(address).key();
    String real = ScratchOverlap.real(name).key();
    return real.startsWith(folder.endsWith("/") || folder.isEmpty() ? folder : folder + "/");
  }

  /**
   * Whether the object at {@code url} is in this folder or below it (a local path with its links resolved): one that
   * a run's shards may replace while the run still reads it, as when a committed output is sorted again in place.
   */
  public boolean holds(String url) {
    ObjectUrl object = ObjectUrl.parse(url);
    return object.storeId().equals(address.storeId())
        && (object.isFile() ? realPathInside(object) : object.key().startsWith(address.key()));
  }

  /** Whether {@code url} has a {@value #RESERVED_FOLDER} folder in its path. */
  public static boolean inReservedFolder(String url) {
    for (String component : url.split("/")) {
      if (component.equals(RESERVED_FOLDER)) {
        return true;
      }
    }
    return false;
  }

  /** The folder as written, ending with '/'. */
  public String url() {
    return url;
  }

  /** The store and key prefix of the folder, for comparing with other locations. */
  ObjectUrl address() {
    return address;
  }

  /** A key map template as written, made absolute: a template without a scheme or a leading '/' is in this folder. */
  public String resolve(String template) {
    boolean absolute = template.startsWith("/") || template.matches("[A-Za-z][A-Za-z0-9+.-]*:.*");
    return absolute ? template : url + template;
  }

  /**
   * {@code name} if it lies in this folder's store, under the folder (local paths compared once normalized, and
   * '..' refused in object keys, and symlinks resolved); refused otherwise: '..' out of it, an absolute path elsewhere, another bucket or
   * another store; and refused in a {@value #RESERVED_FOLDER} folder, where {@code sort clean} deletes.
   */
  public String confine(String name) {
    ObjectUrl parsed;
    try {
      parsed = ObjectUrl.parse(name);
    } catch (IllegalArgumentException e) {
      parsed = null;
    }
    if (parsed == null || !parsed.storeId().equals(address.storeId()) || !parsed.key().startsWith(address.key())
        || parsed.key().length() == address.key().length() || !realPathInside(parsed)) {
      throw new IllegalArgumentException("Invalid output name: " + name + " (must be inside the output location "
          + url + ", the folder of output.template)");
    }
    if (inReservedFolder(parsed.key())) {
      throw new IllegalArgumentException("Invalid output name: " + name + " (must not be in a " + RESERVED_FOLDER
          + " folder, which is reserved for sort scratch)");
    }
    return name;
  }
}
