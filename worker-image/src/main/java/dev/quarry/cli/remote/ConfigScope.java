package dev.quarry.cli.remote;

import java.nio.file.Path;
import java.util.Map;

/** The config files, weakest first: a later one's default and remotes win over an earlier one's. */
public enum ConfigScope {
  /** {@code $XDG_CONFIG_HOME/quarry/config} (else {@code ~/.config/quarry/config}): the user's, every folder's. */
  USER,
  /** {@code <folder>/.quarry/config}: the folder's, meant to be committed with it. */
  FOLDER,
  /** {@code <folder>/.quarry/config.local}: the folder's on this machine only, never committed. */
  LOCAL;

  /** Where this scope's file is for {@code folder}, with {@code environment} locating the user's. */
  public Path file(Path folder, Map<String, String> environment) {
    return switch (this) {
      case USER -> userConfigHome(environment).resolve("quarry").resolve("config");
      case FOLDER -> folder.resolve(".quarry").resolve("config");
      case LOCAL -> folder.resolve(".quarry").resolve("config.local");
    };
  }

  /**
   * The folder a relative local path in this scope's file is relative to: the synced folder for its own files, the
   * config's folder for the user's.
   */
  Path base(Path folder, Map<String, String> environment) {
    return this == USER ? file(folder, environment).getParent() : folder;
  }

  private static Path userConfigHome(Map<String, String> environment) {
    String xdg = environment.get("XDG_CONFIG_HOME");
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      return Path.of(xdg);
    }
    String home = environment.get("HOME");
    return Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"), ".config");
  }
}
