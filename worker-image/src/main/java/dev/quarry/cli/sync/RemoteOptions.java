package dev.quarry.cli.sync;

import dev.quarry.cli.remote.RemoteConfig;
import dev.quarry.cli.remote.RemoteEntry;
import dev.quarry.cli.remote.ResolvedRemote;
import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options every sync command shares: which remote (a name from the config files, a URL, or the default), where
 * local state lives, how many requests fly. The one place a command gets its remote from: call {@link #stores} first,
 * then {@link #session}, {@link #casRemote} or {@link #location}.
 */
final class RemoteOptions {
  @Option(names = "--remote", paramLabel = "NAME|URL",
      description = "The remote: a name from quarry remote list, or the root of a content-addressed store"
          + " (s3://bucket/prefix, file:///path or a local path with a '/', such as ./store). Default: the default"
          + " remote (quarry remote default).")
  String remoteArgument;

  @Option(names = "--state-dir", paramLabel = "DIR",
      description = "Where the hash cache and remote indexes live (default: <folder>/.quarry).")
  Path stateDir;

  @Option(names = {"-j", "--jobs", "--requests-in-flight"}, paramLabel = "N", defaultValue = "64",
      description = "Object store requests kept in flight (default: ${DEFAULT-VALUE}).")
  int requestsInFlight;

  private ResolvedRemote resolved;

  /**
   * Finds the remote, by name in the config files of {@code configFolder} (the synced folder, or the working folder
   * for commands without one) when it is not a URL, and opens the stores to reach it.
   */
  ObjectStores stores(Path configFolder) throws IOException {
    if (requestsInFlight < 1 || requestsInFlight > 4096) {
      throw new IllegalArgumentException("Invalid --requests-in-flight: " + requestsInFlight
          + " (must be 1 to 4096)");
    }
    resolved = remoteArgument != null && !RemoteEntry.isName(remoteArgument) ? ResolvedRemote.ofUrl(remoteArgument)
        : RemoteConfig.load(configFolder, System.getenv()).resolve(remoteArgument);
    return new ObjectStores(resolved.s3().withRequestsInFlight(requestsInFlight));
  }

  /** The remote's URL; after {@link #stores}. */
  String url() {
    if (resolved == null) {
      throw new IllegalStateException("Cannot name the remote before its stores are opened");
    }
    return resolved.url();
  }

  Location location(ObjectStores stores) {
    return stores.locate(url());
  }

  CasRemote casRemote(ObjectStores stores) {
    Location location = location(stores);
    return new CasRemote(location.store(), location.key(), requestsInFlight);
  }

  /** A session on the remote; a remote by name first says on {@code log} which file it came from and where it is. */
  SyncSession session(ObjectStores stores, Path folder, PrintStream log) {
    String described = resolved != null ? resolved.describe() : null;
    if (described != null) {
      log.println(described);
    }
    return new SyncSession(folder, stateDir, casRemote(stores), log);
  }
}
