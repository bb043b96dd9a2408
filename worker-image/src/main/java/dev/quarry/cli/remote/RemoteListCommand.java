package dev.quarry.cli.remote;

import dev.quarry.core.text.Printable;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code quarry remote list}. */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description = {"Lists the remotes of every config file the folder sees, the default marked with *, each with the"
        + " file it comes from.", ""},
    footer = {"", "Example:", "  quarry remote list"})
public final class RemoteListCommand implements Callable<Integer> {
  @Spec CommandSpec command;
  @Mixin ScopeOptions scope;

  @Override
  public Integer call() throws Exception {
    RemoteConfig config = scope.load();
    String defaultRemote = config.defaultRemote();
    PrintWriter out = command.commandLine().getOut();
    if (config.remotes().isEmpty()) {
      out.println("no remotes (add one with quarry remote add NAME s3://bucket/prefix)");
    }
    for (Map.Entry<String, RemoteConfig.Scoped> entry : config.remotes().entrySet()) {
      RemoteEntry remote = entry.getValue().remote();
      StringBuilder line = new StringBuilder(entry.getKey().equals(defaultRemote) ? "* " : "  ")
          .append(remote.name()).append('\t').append(Printable.of(remote.url()));
      if (remote.endpoint() != null) {
        line.append("  endpoint=").append(Printable.of(remote.endpoint()));
      }
      if (remote.profile() != null) {
        line.append("  profile=").append(Printable.of(remote.profile()));
      }
      if (remote.region() != null) {
        line.append("  region=").append(Printable.of(remote.region()));
      }
      line.append("  (").append(config.file(entry.getValue().scope()).path()).append(')');
      out.println(line);
    }
    return 0;
  }
}
