package dev.quarry.cli.remote;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code quarry remote add}. */
@Command(
    name = "add",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {"Adds a named remote to a config file (the folder's unless --global or --local).", ""},
    footer = {"", "A plain http:// endpoint is refused in the folder's config, which is committed (a clone could"
        + " send requests anywhere): keep it in --local or --global.", "", "Examples:",
        "  quarry remote add origin s3://datasets/cas/coco --endpoint https://s3.lab.example --default",
        "  quarry remote add --local minio s3://datasets/cas/coco --endpoint http://minio:9000 --profile minio",
        "  quarry remote add --global backup /mnt/nas/cas"})
public final class RemoteAddCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin ScopeOptions scope;

  @Parameters(index = "0", paramLabel = "NAME", description = "Letters, digits, '.', '_' and '-'.")
  String name;

  @Parameters(index = "1", paramLabel = "URL", description = "s3://bucket/prefix, file:///path or a local path"
      + " (a relative one is kept relative to the folder; with --global, made absolute).")
  String url;

  @Option(names = "--endpoint", paramLabel = "URL", description = "The S3 server, such as http://minio:9000"
      + " (default: the environment's or the profile's).")
  String endpoint;

  @Option(names = "--profile", paramLabel = "NAME", description = "The AWS profile of ~/.aws/config and"
      + " ~/.aws/credentials whose endpoint_url, region and keys to use (default: AWS_PROFILE's).")
  String profile;

  @Option(names = "--region", paramLabel = "REGION", description = "The signing region (default: the"
      + " environment's or the profile's, else us-east-1).")
  String region;

  @Option(names = "--default", description = "Also make it the default remote of the same config file.")
  boolean makeDefault;

  @Option(names = {"-f", "--force"}, description = "Replace a remote of that name in that file.")
  boolean force;

  @Override
  public Integer call() throws Exception {
    RemoteEntry.requireValidName(name);
    ConfigFile file = scope.load().file(scope.chosen());
    if (file.remotes().containsKey(name) && !force) {
      throw new IllegalArgumentException("Cannot add remote " + name + ": " + file.path() + " already has it"
          + " (remove it first, or add with --force to replace it)");
    }
    RemoteEntry remote = new RemoteEntry(name, scope.chosen() == ConfigScope.USER
        ? RemoteConfig.absoluteUrl(url, Path.of("").toAbsolutePath()) : url, endpoint, profile, region);
    if (RemoteConfig.isUntrusted(scope.chosen(), endpoint)) {
      throw new IllegalArgumentException("Cannot add remote " + name + " to " + file.path() + " with the plain http"
          + " endpoint " + endpoint + ": the folder's config is committed, and a remote it gives cannot use plain"
          + " http (add it with --local for this machine, or --global)");
    }
    ConfigFile changed = file.withRemote(remote);
    (makeDefault ? changed.withDefault(name) : changed).write();
    command.commandLine().getOut().println("added remote " + name + " (" + url + ") to " + file.path()
        + (makeDefault ? ", as the default" : ""));
    return 0;
  }
}
