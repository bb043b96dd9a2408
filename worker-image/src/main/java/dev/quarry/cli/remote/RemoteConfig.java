package dev.quarry.cli.remote;

import dev.quarry.core.store.ObjectUrl;
import dev.quarry.core.store.S3Settings;
import dev.quarry.core.text.Printable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The remotes a folder sees: those of the user's config, the folder's {@code .quarry/config} and its
 * {@code .quarry/config.local}, a remote or default in a later file winning over one in an earlier file. Turns what
 * {@code --remote} says (a name, a URL, or nothing for the default) into a URL and the S3 settings to reach it.
 */
public final class RemoteConfig {
  private final Path folder;
  private final Map<String, String> environment;
  private final Map<ConfigScope, ConfigFile> files;

  private RemoteConfig(Path folder, Map<String, String> environment, Map<ConfigScope, ConfigFile> files) {
    this.folder = folder;
    this.environment = environment;
    this.files = files;
  }

  /** Reads the three files of {@code folder}; {@code environment} locates the user's and the AWS files. */
  public static RemoteConfig load(Path folder, Map<String, String> environment) throws IOException {
    Path absolute = folder.toAbsolutePath().normalize();
    Map<ConfigScope, ConfigFile> files = new EnumMap<>(ConfigScope.class);
    for (ConfigScope scope : ConfigScope.values()) {
      files.put(scope, ConfigFile.read(scope.file(absolute, environment)));
    }
    return new RemoteConfig(absolute, environment, files);
  }

  public ConfigFile file(ConfigScope scope) {
    return files.get(scope);
  }

  /** Every remote by name, each from the strongest file that has it, with that file's scope. */
  public Map<String, Scoped> remotes() {
    Map<String, Scoped> remotes = new LinkedHashMap<>();
    for (ConfigScope scope : ConfigScope.values()) {
      files.get(scope).remotes().values().forEach(remote -> remotes.put(remote.name(), new Scoped(remote, scope)));
    }
    return remotes;
  }

  /** A remote and the scope of the file it comes from. */
  public record Scoped(RemoteEntry remote, ConfigScope scope) {}

  /** The default remote's name, from the strongest file that sets one, or null. */
  public String defaultRemote() {
    String name = null;
    for (ConfigScope scope : ConfigScope.values()) {
      if (files.get(scope).defaultRemote() != null) {
        name = files.get(scope).defaultRemote();
      }
    }
    return name;
  }

  /**
   * What {@code argument} (a {@code --remote} value) means: a remote's name, a URL or path, or, when null, the
   * default remote.
   */
  public ResolvedRemote resolve(String argument) {
    String name = argument;
    if (name == null) {
      name = defaultRemote();
      if (name == null) {
        throw new IllegalArgumentException("Cannot find the remote: no --remote given and no default remote set"
            + " (set one with quarry remote default NAME, or give --remote NAME or --remote s3://bucket/prefix)");
      }
    }
    Scoped scoped = remote(name);
    RemoteEntry remote = scoped.remote();
    Path source = files.get(scoped.scope()).path();
    requireTrustedEndpoint(scoped, source);
    String url = absoluteUrl(remote.url(), scoped.scope().base(folder, environment));
    return new ResolvedRemote(name, url, settings(remote), remote, source);
  }

  /**
   * Refuses a plain http endpoint from the folder's committed config: that file comes with a clone, and could send
   * the user's requests (signed with their profile) and data to any server, readable on the way. The user trusts
   * one by declaring the remote in a file of their own ({@code config.local} or the user's config), which wins.
   */
  private static void requireTrustedEndpoint(Scoped scoped, Path source) {
    RemoteEntry remote = scoped.remote();
    if (isUntrusted(scoped.scope(), remote.endpoint())) {
      throw new IllegalArgumentException("Cannot use remote " + remote.name() + " of " + source + ": its endpoint "
          + Printable.of(remote.endpoint()) + " is plain http, set by the file that comes with the folder (a clone"
          + " could send your requests and data anywhere); to trust it, add the remote to this machine's config:"
          + " quarry remote add --local " + remote.name() + " " + Printable.of(remote.url()) + " --endpoint "
          + Printable.of(remote.endpoint()));
    }
  }

  /** Whether an endpoint in a file of that scope is one a remote may not use: plain http in the committed file. */
  static boolean isUntrusted(ConfigScope scope, String endpoint) {
    return scope == ConfigScope.FOLDER && endpoint != null
        && endpoint.toLowerCase(Locale.ROOT).startsWith("http://");
  }

  /** The remote of that name, from the strongest file that has it; refused, naming the known ones, if none has. */
  public Scoped remote(String name) {
    Scoped scoped = remotes().get(name);
    if (scoped == null) {
      List<String> known = new ArrayList<>(remotes().keySet());
      throw new IllegalArgumentException("Unknown remote: " + name + " (" + (known.isEmpty()
          ? "no remotes are configured" : "known: " + String.join(", ", known)) + "; add one with quarry remote add "
          + name + " s3://bucket/prefix)");
    }
    return scoped;
  }

  /** A plain relative path is relative to the file's base; URLs and absolute paths stay as written. */
  static String absoluteUrl(String url, Path base) {
    if (url.startsWith("s3://") || url.startsWith("file://") || Path.of(url).isAbsolute()) {
      return url;
    }
    String absolute = base.resolve(url).normalize().toString();
    return url.endsWith("/") ? absolute + "/" : absolute;
  }

  /** The environment's S3 settings, changed by what the remote sets: its profile, then its endpoint and region. */
  private static S3Settings settings(RemoteEntry remote) {
    if (ObjectUrl.parse(remote.url()).isFile()) {
      return S3Settings.fromEnvironment();
    }
    S3Settings settings = remote.profile() != null ? S3Settings.forProfile(remote.profile())
        : S3Settings.fromEnvironment();
    if (remote.endpoint() != null) {
      settings = settings.withEndpoint(URI.create(remote.endpoint()));
    }
    if (remote.region() != null) {
      settings = settings.withRegion(remote.region());
    }
    return settings;
  }
}
