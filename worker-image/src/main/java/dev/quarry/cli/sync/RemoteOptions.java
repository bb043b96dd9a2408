package dev.quarry.cli.sync;

import dev.quarry.core.store.Location;
import dev.quarry.core.store.ObjectStores;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.sync.SyncSession;
import dev.quarry.core.sync.remote.CasRemote;
import java.io.PrintStream;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every sync command shares: where the remote is, where local state lives, how many requests fly. */
final class RemoteOptions {
  @Option(names = "--remote", required = true, paramLabel = "URL",
      description = "Root of the content-addressed store: s3://bucket/prefix, file:///path or a local path.")
  String remote;

  @Option(names = "--state-dir", paramLabel = "DIR",
      description = "Where the hash cache and remote indexes live (default: <folder>/.quarry).")
  Path stateDir;

  @Option(names = "--requests-in-flight", paramLabel = "N", defaultValue = "64",
      description = "Object store requests kept in flight (default: ${DEFAULT-VALUE}).")
  int requestsInFlight;

  ObjectStores stores() {
    if (requestsInFlight < 1 || requestsInFlight > 4096) {
      throw new IllegalArgumentException("Invalid --requests-in-flight: " + requestsInFlight
          + " (must be 1 to 4096)");
    }
    return new ObjectStores(S3Settings.fromEnvironment().withRequestsInFlight(requestsInFlight));
  }

  SyncSession session(ObjectStores stores, Path folder, PrintStream log) {
    Location location = stores.locate(remote);
    return new SyncSession(folder, stateDir, new CasRemote(location.store(), location.key(), requestsInFlight), log);
  }
}
