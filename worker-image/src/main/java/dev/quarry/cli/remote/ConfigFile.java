package dev.quarry.cli.remote;

import dev.quarry.core.sync.local.PartFiles;
import dev.quarry.core.text.Utf8File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Quarry config file, in git's config syntax: a {@code [core]} section whose {@code remote} names the default
 * remote, and a {@code [remote "NAME"]} section per remote with {@code url}, {@code endpoint}, {@code profile} and
 * {@code region}. Blank lines and lines starting with '#' or ';' are comments, and so is the rest of a line from a '#'
 * or ';' after a space (outside quotes). Credentials are refused: they belong in
 * the AWS shared files (a profile) or the environment, never in a file that may be committed.
 *
 * @param path where the file is (it may not exist: then it is empty)
 * @param defaultRemote the {@code core.remote} it sets, or null
 * @param remotes its remotes by name, in file order
 */
public record ConfigFile(Path path, String defaultRemote, Map<String, RemoteEntry> remotes) {
  private static final Pattern SECTION = Pattern.compile("\\[\\s*(core|remote\\s+\"([^\"]*)\")\\s*]");
  private static final Pattern KEY_VALUE = Pattern.compile("([A-Za-z][A-Za-z0-9_.-]*)\\s*=\\s*(.*)");
  private static final List<String> REMOTE_KEYS = List.of("url", "endpoint", "profile", "region");
  private static final Pattern CREDENTIAL = Pattern.compile(".*(key|secret|token|password|credential).*");

  /** The most bytes a config file may hold: it may come with a cloned folder, so it is read bounded. */
  static final int MAX_BYTES = 1 << 20;
  /** The folder, inside a synced folder, of its configs. */
  static final String FOLDER = ".quarry";

  public ConfigFile {
    remotes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(remotes));
  }

  /**
   * Reads {@code path}; a file that does not exist is an empty config. A config is a regular file, never read
   * through a link (a cloned folder could ship {@code .quarry/config -> /dev/zero}), of at most {@link #MAX_BYTES}.
   */
  public static ConfigFile read(Path path) throws IOException {
    requireNoLinkedFolder(path);
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return new ConfigFile(path, null, Map.of());
    }
    requireRegularFile(path);
    String text = Utf8File.read(path, MAX_BYTES, "Quarry config", "config");
    return parse(path, text.lines().toList());
  }

  /** A config file's own refusal of a link or a FIFO, device or folder in its place. */
  private static void requireRegularFile(Path path) {
    if (Files.isSymbolicLink(path)) {
      throw new IllegalArgumentException("Cannot use " + path + ": it is a symbolic link (a Quarry config must be a"
          + " regular file)");
    }
    if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
      throw new IllegalArgumentException("Cannot use " + path + ": it is not a regular file (a Quarry config must be"
          + " a regular file)");
    }
  }

  /**
   * A folder's {@code .quarry} is refused when it is a link: it comes with the folder, maybe from a clone, and
   * could point anywhere. (The user's own config folder may be a link, as dotfile managers make them.)
   */
  private static void requireNoLinkedFolder(Path path) {
    Path folder = path.getParent();
    if (folder != null && folder.getFileName() != null && folder.getFileName().toString().equals(FOLDER)
        && Files.isSymbolicLink(folder)) {
      throw new IllegalArgumentException("Cannot use " + folder + ": it is a symbolic link (a Quarry config folder"
          + " must be a folder)");
    }
  }

  static ConfigFile parse(Path path, List<String> lines) {
    String defaultRemote = null;
    Map<String, Map<String, String>> sections = new LinkedHashMap<>();
    boolean inSection = false;
    String section = null;
    Map<String, String> values = null;
    for (int number = 1; number <= lines.size(); number++) {
      String line = lines.get(number - 1).strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
        continue;
      }
      String where = " (line " + number + " of " + path + ")";
      Matcher header = SECTION.matcher(line);
      if (header.matches()) {
        inSection = true;
        section = header.group(2);
        if (section != null) {
          RemoteEntry.requireValidName(section);
          values = sections.computeIfAbsent(section, name -> new LinkedHashMap<>());
        } else {
          values = null;
        }
        continue;
      }
      if (line.startsWith("[")) {
        throw new IllegalArgumentException("Invalid section: " + line + where + " (must be [core] or"
            + " [remote \"NAME\"])");
      }
      Matcher keyValue = KEY_VALUE.matcher(line);
      if (!keyValue.matches()) {
        throw new IllegalArgumentException("Invalid line: " + line + where + " (must be [section], key = value,"
            + " or a comment starting with #)");
      }
      String key = keyValue.group(1).toLowerCase(Locale.ROOT);
      String value = unquoted(withoutComment(keyValue.group(2)).strip());
      if (CREDENTIAL.matcher(key).matches()) {
        throw credentials(key, where);
      }
      if (!inSection) {
        throw new IllegalArgumentException("Invalid line: " + line + where + " (a key must follow a [section])");
      }
      if (values == null) {
        if (!key.equals("remote")) {
          throw new IllegalArgumentException("Invalid key: " + key + " in [core]" + where + " (must be remote)");
        }
        RemoteEntry.requireValidName(value);
        defaultRemote = value;
      } else {
        if (!REMOTE_KEYS.contains(key)) {
          throw new IllegalArgumentException("Invalid key: " + key + " in [remote \"" + section + "\"]" + where
              + " (must be url, endpoint, profile or region)");
        }
        values.put(key, value);
      }
    }
    Map<String, RemoteEntry> remotes = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, String>> entry : sections.entrySet()) {
      Map<String, String> remote = entry.getValue();
      if (remote.get("url") == null) {
        throw new IllegalArgumentException("Invalid remote " + entry.getKey() + " in " + path + ": it has no url"
            + " (must set url = s3://bucket/prefix or a folder)");
      }
      try {
        remotes.put(entry.getKey(), new RemoteEntry(entry.getKey(), remote.get("url"), remote.get("endpoint"),
            remote.get("profile"), remote.get("region")));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(e.getMessage() + " (in " + path + ")", e);
      }
    }
    return new ConfigFile(path, defaultRemote, remotes);
  }

  /** The value before a comment: '#' or ';' after a space, outside quotes, as git reads its config. */
  private static String withoutComment(String value) {
    boolean quoted = false;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      } else if (!quoted && (c == '#' || c == ';') && (i == 0 || Character.isWhitespace(value.charAt(i - 1)))) {
        return value.substring(0, i);
      }
    }
    return value;
  }

  private static String unquoted(String value) {
    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1) : value;
  }

  /** The refusal of a key that looks like a credential, in any Quarry config. */
  static IllegalArgumentException credentials(String key, String where) {
    return new IllegalArgumentException("Cannot keep " + key + " in a Quarry config" + where + ": credentials"
        + " belong in ~/.aws/credentials under a profile (then set profile = NAME) or in AWS_ACCESS_KEY_ID and"
        + " AWS_SECRET_ACCESS_KEY, never in a file that may be committed");
  }

  public ConfigFile withRemote(RemoteEntry remote) {
    Map<String, RemoteEntry> changed = new LinkedHashMap<>(remotes);
    changed.put(remote.name(), remote);
    return new ConfigFile(path, defaultRemote, changed);
  }

  /** Without the remote; without the default too when it named that remote. */
  public ConfigFile withoutRemote(String name) {
    Map<String, RemoteEntry> changed = new LinkedHashMap<>(remotes);
    changed.remove(name);
    return new ConfigFile(path, name.equals(defaultRemote) ? null : defaultRemote, changed);
  }

  public ConfigFile withDefault(String name) {
    return new ConfigFile(path, name, remotes);
  }

  /** Writes the file whole (comments are not kept), by rename, creating its folder. */
  public void write() throws IOException {
    StringBuilder text = new StringBuilder("# Quarry config: remotes by name (quarry remote --help). No credentials"
        + " here: use an AWS profile.\n");
    if (defaultRemote != null) {
      text.append("[core]\n    remote = ").append(defaultRemote).append('\n');
    }
    for (RemoteEntry remote : remotes.values()) {
      text.append("[remote \"").append(remote.name()).append("\"]\n");
      text.append("    url = ").append(remote.url()).append('\n');
      if (remote.endpoint() != null) {
        text.append("    endpoint = ").append(remote.endpoint()).append('\n');
      }
      if (remote.profile() != null) {
        text.append("    profile = ").append(remote.profile()).append('\n');
      }
      if (remote.region() != null) {
        text.append("    region = ").append(remote.region()).append('\n');
      }
    }
    requireNoLinkedFolder(path);
    requireRegularFile(path);
    Files.createDirectories(path.getParent());
    Path temporary = PartFiles.beside(path);
    try {
      Files.write(temporary, text.toString().getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
      Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }
}
