package dev.quarry.cli.remote;

import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** Which config file a remote command changes, and the folder whose files it reads. */
final class ScopeOptions {
  @Option(names = "--folder", paramLabel = "DIR", defaultValue = ".",
      description = "The synced folder whose config to use (default: the working folder).")
  Path folder;

  @ArgGroup(exclusive = true)
  Scope scope = new Scope();

  static final class Scope {
    @Option(names = "--global", description = "The user's config ($XDG_CONFIG_HOME/quarry/config), for every folder.")
    boolean global;

    @Option(names = "--local", description = "The folder's config on this machine only (.quarry/config.local; not"
        + " for git).")
    boolean local;
  }

  ConfigScope chosen() {
    return scope.global ? ConfigScope.USER : scope.local ? ConfigScope.LOCAL : ConfigScope.FOLDER;
  }

  RemoteConfig load() throws IOException {
    return RemoteConfig.load(folder, System.getenv());
  }
}
